"""Stimulus building blocks: a Case (word from isa.codec, data poked, regions checked) and helpers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

GUARD = 4  # elements checked on each side of a result, to catch stray writes
INT8 = (-128, 127)
INT32 = (-(2**31), 2**31 - 1)
TYPE_RANGE = {"ibuf": INT8, "wbuf": INT8, "obuf": INT8, "abuf": INT32}  # each buffer's element type


@dataclass
class Case:
    """One instruction: its word, the data poked before it, the regions checked after it."""

    word: int
    pokes: list = field(default_factory=list)    # (space, addr, values)
    regions: list = field(default_factory=list)  # (space, addr, count)
    name: str = ""


def guarded(space: str, addr: int, count: int, size: int) -> tuple:
    lo = max(0, addr - GUARD)
    return (space, lo, min(size, addr + count + GUARD) - lo)


def ints(rng: np.random.Generator, count: int, lo_hi=INT8, fill: str = "random") -> np.ndarray:
    """Random integers, or a corner pattern: 'min', 'max', 'alternate' (min, max, ...)."""
    lo, hi = lo_hi
    if fill == "min":
        return np.full(count, lo, dtype=np.int64)
    if fill == "max":
        return np.full(count, hi, dtype=np.int64)
    if fill == "alternate":
        return np.where(np.arange(count) % 2 == 0, lo, hi).astype(np.int64)
    return rng.integers(lo, hi, size=count, endpoint=True, dtype=np.int64)


def place(rng: np.random.Generator, size: int, count: int, taken=()) -> int:
    """A random address for `count` elements clear of the `taken` (addr, count) ranges."""
    for _ in range(1000):
        a = int(rng.integers(GUARD, size - count - GUARD + 1))
        if all(a + count + GUARD <= b or b + n + GUARD <= a for b, n in taken):
            return a
    raise ValueError(f"no room for {count} elements in a buffer of {size}")
