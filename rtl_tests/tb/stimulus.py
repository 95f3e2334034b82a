"""Stimulus: instruction words (from isa.codec only) with the operand data they read and the
regions their results land in; directed corner cases and seeded random ones per unit."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from isa.codec import encode_fields

GUARD = 4  # elements checked on each side of a result, to catch stray writes
INT8 = (-128, 127)
INT32 = (-(2**31), 2**31 - 1)


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


# ------------------------------------------------------------------ matrix engine

def gemm_case(rng, sizes: dict, m: int, k: int, n: int, acc: int, fill: str = "random",
              acc_fill: str = "random", addrs: tuple | None = None) -> Case:
    ia, wa, aa = addrs or (place(rng, sizes["ibuf"], m * k), place(rng, sizes["wbuf"], k * n),
                           place(rng, sizes["abuf"], m * n))
    word = encode_fields("gemm", ibuf=ia, wbuf=wa, abuf=aa, m=m, k=k, n=n, acc=acc)
    pokes = [("ibuf", ia, ints(rng, m * k, INT8, fill)), ("wbuf", wa, ints(rng, k * n, INT8, fill)),
             ("abuf", aa, ints(rng, m * n, INT32, acc_fill))]
    return Case(word, pokes, [guarded("abuf", aa, m * n, sizes["abuf"])],
                f"gemm m={m} k={k} n={n} acc={acc} {fill}/{acc_fill}")


def gemm_directed(rng, sizes: dict, rows: int, cols: int) -> list[Case]:
    R, C = rows, cols
    cases = [gemm_case(rng, sizes, 1, 1, 1, 0),                       # smallest
             gemm_case(rng, sizes, 1, R, C, 0),                       # m=1, full array
             gemm_case(rng, sizes, 2 * R + 3, R, C, 1),               # long stream, accumulate
             gemm_case(rng, sizes, 5, 1, C, 0),                       # k=1
             gemm_case(rng, sizes, 3, R, 1, 1),                       # n=1
             gemm_case(rng, sizes, 7, max(1, R - 1), max(1, C - 1), 0),
             gemm_case(rng, sizes, 4, R, C, 0, fill="min"),           # (-128)*(-128) sums
             gemm_case(rng, sizes, 4, R, C, 0, fill="alternate"),
             gemm_case(rng, sizes, 3, R, C, 1, fill="min", acc_fill="max"),  # int32 wraps up
             gemm_case(rng, sizes, 3, R, C, 1, fill="alternate", acc_fill="min")]
    return cases


def gemm_random(rng, sizes: dict, rows: int, cols: int, count: int) -> list[Case]:
    return [gemm_case(rng, sizes, int(rng.integers(1, 3 * rows + 1)), int(rng.integers(1, rows + 1)),
                      int(rng.integers(1, cols + 1)), int(rng.integers(0, 2)))
            for _ in range(count)]
