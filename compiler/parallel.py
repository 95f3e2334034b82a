"""Elementwise numpy work the compiler runs itself (weight folding, layout copies, weight
quantization), split into row blocks over the usable cores: numpy releases the GIL in its
loops, so the blocks run at once, and each element is computed as it would be in one call."""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor

from .blas import usable_cores

MIN_BLOCK = 1 << 18  # elements per block at least: below it a thread hand-off costs more
_POOL: dict = {}     # pid -> its pool (a forked child starts its own: it has no threads)


def _pool(workers: int) -> ThreadPoolExecutor:
    pool = _POOL.get(os.getpid())
    if pool is None or pool._max_workers < workers:
        pool = _POOL[os.getpid()] = ThreadPoolExecutor(workers,
                                                       thread_name_prefix="compiler-numpy")
    return pool


def over_rows(rows: int, elems_per_row: int, fn) -> None:
    """fn(lo, hi) for a partition of range(rows) into contiguous blocks of at least MIN_BLOCK
    elements, taken in turn by the calling thread and by up to one helper thread per other
    usable core; returns once all have run (an exception in one is raised here). The caller
    works through the blocks itself rather than wait for a helper the OS has not run yet (on
    a loaded machine): a helper that has not started is cancelled, one that has finishes the
    block it holds."""
    blocks = min(rows, rows * elems_per_row // MIN_BLOCK)
    helpers = min(usable_cores(), blocks) - 1
    if helpers < 1:
        fn(0, rows)
        return
    bounds = [rows * k // blocks for k in range(blocks + 1)]
    taken = itertools.count()  # next() on it is atomic: each block is taken once

    def work() -> None:
        for k in taken:
            if k >= blocks:
                return
            fn(bounds[k], bounds[k + 1])
    futures = [_pool(helpers).submit(work) for _ in range(helpers)]
    try:
        work()
    finally:
        for f in futures:
            if not f.cancel():
                f.result()
