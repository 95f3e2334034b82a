"""One BLAS thread while the simulator computes (functional gemm and conv), via threadpoolctl."""

from __future__ import annotations

import contextlib

_CONTROLLER: list = []  # threadpoolctl's view of the loaded BLAS, found once per process


@contextlib.contextmanager
def single_threaded():
    """Run the block with one BLAS thread, then restore the count.

    The matrix unit's products are small (m up to a tile's rows, k up to a conv window's
    taps x channels, n up to the array's columns): OpenBLAS's second thread gains nothing on
    them, and its threads spin-wait for work, so on cores shared with other processes a
    256x288x16 product took 20 ms instead of 0.5 ms (measured on the 2-core host under load;
    half of ResNet-18's functional run). OpenBLAS splits a product's rows and columns between
    threads, never its sums, and the int8 products are exact in float64 anyway
    (isa.semantics.gemm): the results are bit-identical."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController
        _CONTROLLER.append(ThreadpoolController())
    with _CONTROLLER[0].limit(limits=1, user_api="blas"):
        yield
