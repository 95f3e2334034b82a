"""BLAS threads for numpy work the compiler runs itself (calibration), set via threadpoolctl."""

from __future__ import annotations

import contextlib
import os


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no affinity call on this platform
        return os.cpu_count() or 1


@contextlib.contextmanager
def single_threaded():
    """Run the block with one BLAS thread (always, whatever the load), then restore the count.

    OpenBLAS splits a matmul's rows and columns between its threads, never its sums, so the
    floats are bit-identical either way; the choice is about speed. Calibration parallelises
    over samples instead (compiler.passes.calibrate: one Python thread per core, each sample's
    BLAS calls single-threaded), which beats OpenBLAS threads on an idle machine (whole
    samples in parallel, small late-layer matmuls included, where a split 7x7 matmul gains
    little) and, unlike them, costs nothing on a busy one: OpenBLAS's threads spin-wait for
    work, and on shared cores that made the calibration up to 6x slower, while Python threads
    blocked on the GIL sleep. The previous rule (one thread only while the load average is
    above half the cores) needed no sample threads but was fast only when the machine idled."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1, user_api="blas"):
        yield
