"""The window instructions' stimulus (conv on the matrix unit, dwconv in its depthwise mode):
the cfg words of a case's conv_* registers, one instruction over an h x w tile with its
operands placed and filled, and the seeded random register sets (stim_matrix_conv.py,
stim_dwconv.py shape their cases with these)."""

from __future__ import annotations

from isa.codec import encode_fields
from isa.operands import window_out_hw
from rtl_tests.tb.stimulus import INT8, INT32, Case, guarded, ints, place

REGS = ("kh", "kw", "stride_h", "stride_w", "pad_top", "pad_left", "pad_bottom", "pad_right",
        "dilation_h", "dilation_w")
RESET = {r: (0 if r.startswith("pad") else 1) for r in REGS}


def window_cases(rng, sizes: dict, op: str, h: int, w: int, cin: int, cout: int, regs: dict,
                 acc: int, fill: str = "random", acc_fill: str = "random") -> list[Case]:
    """The cfg words of `regs` (every register, so cases do not depend on each other), then
    one `op` of an h x w x cin tile: conv into cout channels (kh x kw x cin x cout weights),
    or dwconv (cout = cin = its channels, kh x kw x c weights)."""
    full = {**RESET, **regs}
    regs_full = {f"conv_{k}": v for k, v in full.items()}
    oh, ow = window_out_hw("conv", {"in_h": h, "in_w": w}, regs_full)
    kh, kw = full["kh"], full["kw"]
    weights = kh * kw * cin * (cout if op == "conv" else 1)
    ia = place(rng, sizes["ibuf"], h * w * cin)
    wa = place(rng, sizes["wbuf"], weights)
    aa = place(rng, sizes["abuf"], oh * ow * cout)
    cases = [Case(encode_fields("cfg", unit=0, reg=f"conv_{r}", value=v), [], [], f"cfg {r}={v}")
             for r, v in full.items()]
    channels = {"cin": cin, "cout": cout} if op == "conv" else {"channels": cin}
    word = encode_fields(op, ibuf=ia, wbuf=wa, abuf=aa, in_h=h, in_w=w, **channels, acc=acc)
    pokes = [("ibuf", ia, ints(rng, h * w * cin, INT8, fill)),
             ("wbuf", wa, ints(rng, weights, INT8, fill)),
             ("abuf", aa, ints(rng, oh * ow * cout, INT32, acc_fill))]
    shape = f"{h}x{w}x{cin}->{cout}" if op == "conv" else f"{h}x{w}x{cin}"
    cases.append(Case(word, pokes, [guarded("abuf", aa, oh * ow * cout, sizes["abuf"])],
                      f"{op} {shape} {full} acc={acc} {fill}/{acc_fill}"))
    return cases


def random_regs(rng, dilation_h: bool = False) -> dict:
    """A random 1..3 x 1..3 window with stride 1..2 and padding below its size (and with
    `dilation_h`, a vertical dilation of 1..2), drawn in this order."""
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    regs = {"kh": kh, "kw": kw, "stride_h": int(rng.integers(1, 3)),
            "stride_w": int(rng.integers(1, 3)), "pad_top": int(rng.integers(0, kh)),
            "pad_left": int(rng.integers(0, kw)), "pad_bottom": int(rng.integers(0, kh)),
            "pad_right": int(rng.integers(0, kw))}
    if dilation_h:
        regs["dilation_h"] = int(rng.integers(1, 3))
    return regs
