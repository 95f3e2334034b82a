"""Depthwise-mode stimulus: dwconv tiles (with the cfg words that set their conv_* registers) at
the corners of the mode: every channel column, one channel, padding on each side, stride,
dilation, more taps than array rows (several passes), accumulate, int32 wrap; and seeded random
tiles."""

from __future__ import annotations

from rtl_tests.tb.stim_window import REGS, RESET, random_regs, window_cases
from rtl_tests.tb.stimulus import Case

__all__ = ["REGS", "RESET", "dwconv_cases", "dwconv_directed", "dwconv_random"]


def dwconv_cases(rng, sizes: dict, h: int, w: int, c: int, regs: dict, acc: int,
                 fill: str = "random", acc_fill: str = "random") -> list[Case]:
    """The cfg words of `regs`, then one dwconv of an h x w x c tile."""
    return window_cases(rng, sizes, "dwconv", h, w, c, c, regs, acc, fill, acc_fill)


def dwconv_directed(rng, sizes: dict, rows: int, cols: int) -> list[Case]:
    R, C = rows, cols
    k33 = {"kh": 3, "kw": 3}
    out = []
    out += dwconv_cases(rng, sizes, 5, 5, C, {**k33, "pad_top": 1, "pad_left": 1,
                                              "pad_bottom": 1, "pad_right": 1}, 0)
    out += dwconv_cases(rng, sizes, 1, 1, 1, {}, 0)                          # smallest
    out += dwconv_cases(rng, sizes, 4, 3, 1, {"kh": 2, "kw": 3}, 1)          # one channel
    for side in ("top", "left", "bottom", "right"):
        out += dwconv_cases(rng, sizes, 4, 4, max(1, C - 1), {**k33, f"pad_{side}": 2}, 0)
    out += dwconv_cases(rng, sizes, 7, 6, 2, {**k33, "stride_h": 2, "stride_w": 3,
                                              "pad_top": 1}, 1)
    out += dwconv_cases(rng, sizes, 7, 7, C, {"kh": 3, "kw": 2, "dilation_h": 2,
                                              "dilation_w": 3}, 0)
    kh = min(R + 1, 15)  # kh * 2 taps > R: several passes, the last one partial
    out += dwconv_cases(rng, sizes, kh + 1, 4, C, {"kh": kh, "kw": 2}, 0)
    out += dwconv_cases(rng, sizes, 4, 4, C, k33 | {"pad_top": 1, "pad_bottom": 1}, 0,
                        fill="min")                                          # (-128)^2 sums
    out += dwconv_cases(rng, sizes, 3, 3, C, {"kh": 2, "kw": 2}, 1, fill="min",
                        acc_fill="max")                                      # int32 wraps
    return out


def dwconv_random(rng, sizes: dict, rows: int, cols: int, count: int) -> list[Case]:
    out = []
    for _ in range(count):
        regs = random_regs(rng, dilation_h=True)
        h = int(rng.integers(regs["dilation_h"] * (regs["kh"] - 1) + 1, 9))
        w = int(rng.integers(regs["kw"], 9))
        out += dwconv_cases(rng, sizes, h, w, int(rng.integers(1, cols + 1)), regs,
                            int(rng.integers(0, 2)))
    return out
