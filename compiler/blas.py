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
    BLAS calls single-threaded). Measured on 2 cores, ResNet-50's 8 samples: one thread per
    sample 0.47 s, OpenBLAS's 2 threads 0.56 s, one thread 0.78 s (moderate load); with two
    busy loops beside it 0.89 s, 6.1 s and 0.99 s. OpenBLAS's threads spin-wait for work, so
    on shared cores they lose badly, while Python threads waiting for the GIL sleep; and whole
    samples in parallel also cover the copies and the small late-layer matmuls a split
    matmul barely speeds up. The previous rule (one BLAS thread only while the load average
    was above half the cores) was slower both idle and busy, and depended on the load."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1, user_api="blas"):
        yield
