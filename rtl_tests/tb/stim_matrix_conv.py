"""Matrix-unit conv stimulus: conv tiles (with the cfg words that set their conv_* registers)
whose passes are shallower and deeper than their streams (kp < oh*ow and kp > oh*ow, the two
regimes of -weight-buffers=2's overlap), ragged last channel blocks, padding, stride,
accumulate, int32 wrap; and seeded random tiles."""

from __future__ import annotations

from rtl_tests.tb.stim_window import REGS, random_regs, window_cases
from rtl_tests.tb.stimulus import Case

__all__ = ["REGS", "conv_cases", "conv_directed", "conv_random"]


def conv_cases(rng, sizes: dict, h: int, w: int, cin: int, cout: int, regs: dict, acc: int,
               fill: str = "random", acc_fill: str = "random") -> list[Case]:
    """The cfg words of `regs`, then one conv of an h x w x cin tile into cout channels."""
    return window_cases(rng, sizes, "conv", h, w, cin, cout, regs, acc, fill, acc_fill)


def conv_directed(rng, sizes: dict, rows: int, cols: int) -> list[Case]:
    R, C = rows, cols
    k33 = {"kh": 3, "kw": 3}
    pad1 = {"pad_top": 1, "pad_left": 1, "pad_bottom": 1, "pad_right": 1}
    out = []
    out += conv_cases(rng, sizes, 1, 1, 1, 1, {}, 0)               # one pass, m = 1
    out += conv_cases(rng, sizes, 6, 6, R, C, {**k33, **pad1}, 0)  # kp <= m: back to back
    out += conv_cases(rng, sizes, 2, 2, 2 * R + 1, C, {}, 1)       # kp > m = 4, ragged block
    out += conv_cases(rng, sizes, 3, 3, R, C, k33, 0)              # m = 1 < kp: load-bound
    # depths R, 1, R, 1, ...: a deep load after a shallow one waits for its bank
    out += conv_cases(rng, sizes, 3, 4, R + 1, max(1, C - 1), {"kh": 2, "kw": 3}, 0)
    out += conv_cases(rng, sizes, 7, 6, 2, C, {**k33, "stride_h": 2, "stride_w": 3,
                                              "pad_top": 1}, 1)
    out += conv_cases(rng, sizes, 4, 4, R, C, {**k33, **pad1}, 0, fill="min")  # (-128)^2 sums
    out += conv_cases(rng, sizes, 3, 3, R, C, {"kh": 2, "kw": 2}, 1, fill="min",
                      acc_fill="max")                                         # int32 wraps
    return out


def conv_random(rng, sizes: dict, rows: int, cols: int, count: int) -> list[Case]:
    out = []
    for _ in range(count):
        regs = random_regs(rng)
        h = int(rng.integers(regs["kh"], 7))
        w = int(rng.integers(regs["kw"], 7))
        out += conv_cases(rng, sizes, h, w, int(rng.integers(1, 2 * rows + 2)),
                          int(rng.integers(1, cols + 1)), regs, int(rng.integers(0, 2)))
    return out
