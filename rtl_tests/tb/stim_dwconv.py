"""Depthwise-mode stimulus: dwconv tiles (with the cfg words that set their conv_* registers) at
the corners of the mode: every channel column, one channel, padding on each side, stride,
dilation, more taps than array rows (several passes), accumulate, int32 wrap; and seeded random
tiles."""

from __future__ import annotations

from isa.codec import encode_fields
from isa.operands import window_out_hw
from rtl_tests.tb.stimulus import INT8, INT32, Case, guarded, ints, place

REGS = ("kh", "kw", "stride_h", "stride_w", "pad_top", "pad_left", "pad_bottom", "pad_right",
        "dilation_h", "dilation_w")
RESET = {r: (0 if r.startswith("pad") else 1) for r in REGS}


def dwconv_cases(rng, sizes: dict, h: int, w: int, c: int, regs: dict, acc: int,
                 fill: str = "random", acc_fill: str = "random") -> list[Case]:
    """The cfg words of `regs` (every register, so cases do not depend on each other), then
    one dwconv of an h x w x c tile."""
    full = {**RESET, **regs}
    regs_full = {f"conv_{k}": v for k, v in full.items()}
    oh, ow = window_out_hw("conv", {"in_h": h, "in_w": w}, regs_full)
    kh, kw = full["kh"], full["kw"]
    ia = place(rng, sizes["ibuf"], h * w * c)
    wa = place(rng, sizes["wbuf"], kh * kw * c)
    aa = place(rng, sizes["abuf"], oh * ow * c)
    cases = [Case(encode_fields("cfg", unit=0, reg=f"conv_{r}", value=v), [], [], f"cfg {r}={v}")
             for r, v in full.items()]
    word = encode_fields("dwconv", ibuf=ia, wbuf=wa, abuf=aa, in_h=h, in_w=w, channels=c, acc=acc)
    pokes = [("ibuf", ia, ints(rng, h * w * c, INT8, fill)),
             ("wbuf", wa, ints(rng, kh * kw * c, INT8, fill)),
             ("abuf", aa, ints(rng, oh * ow * c, INT32, acc_fill))]
    cases.append(Case(word, pokes, [guarded("abuf", aa, oh * ow * c, sizes["abuf"])],
                      f"dwconv {h}x{w}x{c} {full} acc={acc} {fill}/{acc_fill}"))
    return cases


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
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        regs = {"kh": kh, "kw": kw, "stride_h": int(rng.integers(1, 3)),
                "stride_w": int(rng.integers(1, 3)), "pad_top": int(rng.integers(0, kh)),
                "pad_left": int(rng.integers(0, kw)), "pad_bottom": int(rng.integers(0, kh)),
                "pad_right": int(rng.integers(0, kw)), "dilation_h": int(rng.integers(1, 3))}
        h = int(rng.integers(regs["dilation_h"] * (kh - 1) + 1, 9))
        w = int(rng.integers(kw, 9))
        out += dwconv_cases(rng, sizes, h, w, int(rng.integers(1, cols + 1)), regs,
                            int(rng.integers(0, 2)))
    return out
