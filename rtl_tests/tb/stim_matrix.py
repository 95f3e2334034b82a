"""Matrix-engine stimulus: gemm corner cases and seeded random gemms, per array dataflow (the
weight-stationary array limits k to R; the output-stationary one folds m by R, k is free)."""

from __future__ import annotations

from isa.codec import encode_fields
from rtl_tests.tb.stimulus import INT8, INT32, Case, guarded, ints, place

def gemm_case(rng, sizes: dict, m: int, k: int, n: int, acc: int, fill: str = "random",
              acc_fill: str = "random", addrs: tuple | None = None, wt: int = 0) -> Case:
    """wt=1: the weight tile is read as stored n x k (transposed)."""
    ia, wa, aa = addrs or (place(rng, sizes["ibuf"], m * k), place(rng, sizes["wbuf"], k * n),
                           place(rng, sizes["abuf"], m * n))
    word = encode_fields("gemm", ibuf=ia, wbuf=wa, abuf=aa, m=m, k=k, n=n, acc=acc, wt=wt)
    pokes = [("ibuf", ia, ints(rng, m * k, INT8, fill)), ("wbuf", wa, ints(rng, k * n, INT8, fill)),
             ("abuf", aa, ints(rng, m * n, INT32, acc_fill))]
    return Case(word, pokes, [guarded("abuf", aa, m * n, sizes["abuf"])],
                f"gemm m={m} k={k} n={n} acc={acc} wt={wt} {fill}/{acc_fill}")


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


def gemm_wt_cases(rng, sizes: dict, rows: int, cols: int, count: int) -> list[Case]:
    """wt = 1: square, ragged (k != n, so a k/n mix-up shows), k = 1, n = 1, the full array,
    then seeded random shapes."""
    R, C = rows, cols
    cases = [gemm_case(rng, sizes, 1, 1, 1, 0, wt=1),
             gemm_case(rng, sizes, 2 * R + 1, R, C, 0, wt=1),
             gemm_case(rng, sizes, 5, max(1, R - 1), max(1, C - 2), 1, wt=1),
             gemm_case(rng, sizes, 4, 1, C, 0, wt=1),
             gemm_case(rng, sizes, 3, R, 1, 1, wt=1),
             gemm_case(rng, sizes, 4, R, C, 1, fill="min", acc_fill="max", wt=1)]
    cases += [gemm_case(rng, sizes, int(rng.integers(1, 3 * rows + 1)),
                        int(rng.integers(1, rows + 1)), int(rng.integers(1, cols + 1)),
                        int(rng.integers(0, 2)), wt=1) for _ in range(count)]
    return cases


def gemm_os_directed(rng, sizes: dict, rows: int, cols: int) -> list[Case]:
    """Output-stationary corners: one fold, folds with a partial last one, k past R, k=1,
    n=1, the k field's maximum, extreme products, int32 wrap on accumulate, wt = 1 (n x k)."""
    R, C = rows, cols
    return [gemm_case(rng, sizes, 1, 1, 1, 0),                       # smallest
            gemm_case(rng, sizes, R, R, C, 0),                       # one full fold
            gemm_case(rng, sizes, R + 1, 2 * R + 3, C, 1),           # 2 folds, the last 1 row
            gemm_case(rng, sizes, 3 * R + 2, 1, C, 0),               # k=1, 4 folds
            gemm_case(rng, sizes, 5, 3 * R, 1, 1),                   # n=1, k > R
            gemm_case(rng, sizes, 2, 255, max(1, C - 1), 0),         # the k field's maximum
            gemm_case(rng, sizes, 2 * R, R + 1, C, 0, fill="min"),   # (-128)*(-128) sums
            gemm_case(rng, sizes, R - 1 or 1, 7, C, 0, fill="alternate"),
            gemm_case(rng, sizes, R + 2, 2 * R, C, 1, fill="min", acc_fill="max"),  # wraps up
            gemm_case(rng, sizes, 3, R, C, 1, fill="alternate", acc_fill="min"),
            gemm_case(rng, sizes, R + 3, 2 * R + 1, max(1, C - 1), 1, wt=1),  # n x k, k > R
            gemm_case(rng, sizes, 2 * R, 1, C, 0, wt=1)]


def gemm_os_random(rng, sizes: dict, rows: int, cols: int, count: int) -> list[Case]:
    return [gemm_case(rng, sizes, int(rng.integers(1, 3 * rows + 1)),
                      int(rng.integers(1, 3 * rows + 4)), int(rng.integers(1, cols + 1)),
                      int(rng.integers(0, 2)))
            for _ in range(count)]


def gemm_chain(rng, sizes: dict, rows: int, cols: int, dataflow: str) -> list[Case]:
    """Three gemms to issue without a gap (on os, each of two folds, the last partial)."""
    if dataflow == "os":
        return [gemm_case(rng, sizes, rows + 1 + i, rows + 2, cols, i % 2) for i in range(3)]
    return [gemm_case(rng, sizes, 2 + i, rows, cols, i % 2) for i in range(3)]


# the stimulus of each dataflow (the Target's -dataflow): its legal shapes differ
DIRECTED = {"ws": gemm_directed, "os": gemm_os_directed}
RANDOM = {"ws": gemm_random, "os": gemm_os_random}
