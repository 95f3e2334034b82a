"""Elementwise numpy work the compiler runs itself (weight folding, layout copies, weight
quantization), split into row blocks over the usable cores: numpy releases the GIL in its
loops, so the blocks run at once, and each element is computed as it would be in one call."""

from __future__ import annotations

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
    """fn(lo, hi) for a partition of range(rows) into contiguous blocks, one per usable core
    (fewer when a block would have under MIN_BLOCK elements); the calling thread runs the
    first, and this returns once all have run (an exception in one is raised here)."""
    parts = min(usable_cores(), rows, rows * elems_per_row // MIN_BLOCK)
    if parts <= 1:
        fn(0, rows)
        return
    bounds = [rows * k // parts for k in range(parts + 1)]
    futures = [_pool(parts - 1).submit(fn, bounds[k], bounds[k + 1]) for k in range(1, parts)]
    try:
        fn(bounds[0], bounds[1])
    finally:
        for f in futures:
            f.result()
