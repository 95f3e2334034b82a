"""NPU code of elementwise layers over flat chunks (the same vector sequences as the qnn ops'
integer semantics: add = vmul, vmul, vadd, vshr; multiply = vmul, vrequant)."""

from __future__ import annotations

import numpy as np

from ...lower.eltwise import EltwiseLayer
from .generators import register_generator


@register_generator(EltwiseLayer, items=lambda layer, hw: layer.chunks())
def gen_eltwise(em, layer, chunks, dram, lowered, key: str) -> None:
    hw, a = em.hw, layer.attrs
    eb = hw.act_bytes
    quant = hw.dtype == "int8"
    c = layer.schedule.chunk
    sram = em.sram()
    xa = sram.alloc("ibuf", 2 * c, "lhs slots")
    const = layer.rhs_const is not None
    xb = sram.alloc("wbuf", 2 * c, "rhs slots") if len(layer.xs) > 1 or const else None
    oa = sram.alloc("obuf", 2 * c, "out slots")
    srcs = [dram.addr(lowered, v) for v in layer.xs]
    if const:  # a constant operand (a position embedding) streams from the constants
        srcs.append(dram.const(f"{key}.rhs", layer.rhs_const))
    y = dram.addr(lowered, layer.y)
    if layer.op == "lut":
        ta = sram.alloc("wbuf", 256, "table")
        em.load_dense("w", "wbuf", ta, dram.const(f"{key}.lut", layer.table), 256,
                      comment=f"{layer.name}: table")
    if quant and layer.op in ("add", "multiply"):
        t = sram.alloc("abuf", c, "product")
        if layer.op == "add":
            u = sram.alloc("abuf", c, "rhs product")
            lm, rm = sram.alloc("abuf", c, "lhs mult"), sram.alloc("abuf", c, "rhs mult")
            mults = sram.alloc("abuf", 2, "mults")
            em.load_dense("w", "abuf", mults, dram.const(
                f"{key}.mults", np.array([a["lhs_mult"], a["rhs_mult"]], np.int32)), 2,
                comment=f"{layer.name}: multipliers")
            for vec, src in ((lm, mults), (rm, mults + 1)):
                em.vec("vsub", ("abuf", vec), ("abuf", vec), c, ("abuf", vec))
                em.vec("vbias", ("abuf", vec), ("abuf", vec), c, ("abuf", src), channels=1)
        else:
            rq = sram.alloc("abuf", 2, "requant pair")
            em.load_dense("w", "abuf", rq, dram.const(
                f"{key}.rq", np.array([a["mult"], a["shift"]], np.int32)), 2,
                comment=f"{layer.name}: requant pair")
    for k, (e0, e1) in enumerate(chunks):
        n, s = e1 - e0, k % 2
        tag = f"{layer.name} elems {e0}:{e1}"
        x0 = ("ibuf", xa + s * c)
        em.load_dense("in", "ibuf", x0[1], srcs[0] + e0 * eb, n, comment=f"{tag}: lhs")
        x1 = None
        if xb is not None:
            x1 = ("wbuf", xb + s * c)
            em.load_dense("res", "wbuf", x1[1], srcs[1] + e0 * eb, n, comment=f"{tag}: rhs")
        out = ("obuf", oa + s * c)
        op = layer.op
        if op == "add" and quant:
            em.vec("vmul", ("abuf", t), x0, n, ("abuf", lm), comment=tag)
            em.vec("vmul", ("abuf", u), x1, n, ("abuf", rm))
            em.vec("vadd", ("abuf", t), ("abuf", t), n, ("abuf", u))
            em.vec("vshr", out, ("abuf", t), n, shift=a["shift"])
        elif op == "multiply" and quant:
            em.vec("vmul", ("abuf", t), x0, n, x1, comment=tag)
            em.vec("vrequant", out, ("abuf", t), n, ("abuf", rq), channels=1)
        elif op in ("add", "multiply"):
            em.vec("vadd" if op == "add" else "vmul", out, x0, n, x1, comment=tag)
        elif op == "relu":
            em.vec("vrelu", out, x0, n, comment=tag)
        elif op == "clip":
            em.vec("vclip", out, x0, n, lo=a["lo"], hi=a["hi"], comment=tag)
        elif op == "lut":
            em.vec("vlut", out, x0, n, ("wbuf", ta), comment=tag)
        act = a.get("act", "none") if op == "add" else "none"
        if act == "relu":
            em.vec("vrelu", out, out, n)
        elif act == "clip":
            em.vec("vclip", out, out, n, lo=a["act_lo"], hi=a["act_hi"])
        em.store_dense("out", "obuf", out[1], y + e0 * eb, n, comment=f"{tag}: store")
