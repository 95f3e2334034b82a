"""NPU code of the row-wise layers (Softmax, LayerNorm): per row tile, the vector sequence
their qnn ops define (compiler/ops/attention.py, compiler/ops/norm.py), on one int32 tile in
abuf and a few per-row vectors; inputs and outputs double-buffered."""

from __future__ import annotations

import numpy as np

from ...lower.rowwise import RowLayer
from ...ops.attention import MASK_DROP
from ...ops.norm import LN_MEAN_FRAC, LN_NORM_FRAC, LN_RSTD_FRAC, LN_VAR_FRAC
from .generators import register_generator

I32 = np.int32
FEW_TILES = 4  # softmax tiles per core up to which the tiles run one after another


@register_generator(RowLayer, items=lambda layer, hw: layer.items())
def gen_rowwise(em, layer, tiles, dram, lowered, key: str) -> None:
    gen = {("softmax", True): _softmax, ("layernorm", True): _layernorm,
           ("softmax", False): _softmax_float, ("layernorm", False): _layernorm_float}
    gen[layer.op, layer.quantized](em, layer, tiles, dram, lowered, key)


def _tile(s: dict, sl: int, rt: int, c: int) -> tuple:
    return (("ibuf", s["x"] + sl * rt * c), ("abuf", s["t"] + sl * rt * c),
            ("obuf", s["o"] + sl * rt * c), ("abuf", s["a"] + sl * rt),
            ("abuf", s["b"] + sl * rt))


def _softmax_float(em, layer, tiles, dram, lowered, key: str) -> None:
    """fp16: the IEEE steps (vexp/vrecip ignore their fixed-point fields)."""
    c, rt, eb = layer.cols, layer.schedule.rows, em.hw.act_bytes
    sram = em.sram()
    masked = layer.mask is not None
    s = _slots(sram, layer, rt, masked)
    x_addr, y_addr = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    mask_addr = dram.const(f"{key}.mask", layer.mask) if masked else None
    for i, (r0, r1) in enumerate(tiles):
        r, sl, tag = r1 - r0, i % 2, f"{layer.name} rows {r0}:{r1}"
        x, t, o, mx, sm = _tile(s, sl, rt, c)
        em.load_dense("in", "ibuf", x[1], x_addr + r0 * c * eb, r * c, comment=f"{tag}: scores")
        src = x
        if masked:
            mk = ("wbuf", s["m"] + sl * rt * c)
            em.load_dense("w", "wbuf", mk[1], mask_addr + (r0 % layer.period()) * c * eb,
                          r * c, comment=f"{tag}: mask rows")
            em.vec("vadd", t, x, r * c, mk, comment=f"{tag}: mask")
            src = t
        em.row("vrmax", mx, src, r, c, comment=tag)
        em.row("vrsub", t, src, r, c, mx)
        em.vec("vexp", t, t, r * c, in_frac=0, out_frac=0)
        em.row("vrsum", sm, t, r, c)
        em.vec("vrecip", sm, sm, r, in_frac=0, out_frac=0)
        em.row("vrmul", o, t, r, c, sm, shift=0)
        em.store_dense("out", "obuf", o[1], y_addr + r0 * c * eb, r * c, comment=f"{tag}: store")


def _layernorm_float(em, layer, tiles, dram, lowered, key: str) -> None:
    """fp16: mean, centred squares, 1/sqrt, then gamma (a replicated tile) and beta."""
    c, rt, eb = layer.cols, layer.schedule.rows, em.hw.act_bytes
    sram = em.sram()
    s = _slots(sram, layer, rt, False)
    t2 = sram.alloc("abuf", rt * c, "squares")
    table = np.concatenate([layer.bias.astype(np.float32), np.tile(layer.mult.astype(
        np.float32), rt), np.array([1.0 / c, layer.params["epsilon"]], np.float32)])
    k = sram.alloc("abuf", table.size, "beta, gamma rows, 1/H, eps")
    beta, gamma, inv_h, eps = k, k + c, k + c + rt * c, k + c + rt * c + 1
    em.load_dense("w", "abuf", k, dram.const(f"{key}.table", table), table.size,
                  comment=f"{layer.name}: beta, gamma rows, 1/H, eps")
    x_addr, y_addr = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    for i, (r0, r1) in enumerate(tiles):
        r, sl, tag = r1 - r0, i % 2, f"{layer.name} rows {r0}:{r1}"
        x, t, o, mean, var = _tile(s, sl, rt, c)
        em.load_dense("in", "ibuf", x[1], x_addr + r0 * c * eb, r * c, comment=f"{tag}: rows")
        em.row("vrsum", mean, x, r, c, comment=tag)
        em.row("vrmul", mean, mean, 1, r, ("abuf", inv_h), shift=0)
        em.row("vrsub", t, x, r, c, mean)
        em.vec("vmul", ("abuf", t2), t, r * c, t)
        em.row("vrsum", var, ("abuf", t2), r, c)
        em.row("vrmul", var, var, 1, r, ("abuf", inv_h), shift=0)
        em.vec("vbias", var, var, r, ("abuf", eps), channels=1)
        em.vec("vrsqrt", var, var, r, in_frac=0, out_frac=0)
        em.row("vrmul", t, t, r, c, var, shift=0)
        em.vec("vmul", t, t, r * c, ("abuf", gamma))
        em.vec("vbias", o, t, r * c, ("abuf", beta), channels=c)
        em.store_dense("out", "obuf", o[1], y_addr + r0 * c * eb, r * c, comment=f"{tag}: store")


def _slots(sram, layer, rt: int, masked: bool) -> dict:
    c = layer.cols
    s = {"x": sram.alloc("ibuf", 2 * rt * c, "input slots"),
         "t": sram.alloc("abuf", 2 * rt * c, "int32 tile slots"),
         "o": sram.alloc("obuf", 2 * rt * c, "output slots"),
         "a": sram.alloc("abuf", 2 * rt, "per-row values"),
         "b": sram.alloc("abuf", 2 * rt, "per-row values")}
    if masked:
        s["m"] = sram.alloc("wbuf", 2 * rt * c, "mask slots")
    return s


def _softmax(em, layer, tiles, dram, lowered, key: str) -> None:
    c, p, rt = layer.cols, layer.params, layer.schedule.rows
    eb = em.hw.act_bytes
    sram = em.sram()
    masked = layer.mask is not None
    s = _slots(sram, layer, rt, masked)
    normalize = p.get("normalize", True)
    # unnormalized (P.V divides by the row sums): the last row constant is 127, not out_mult
    consts = np.concatenate([np.full(rt, v, I32) for v in (MASK_DROP, p["in_mult"],
                                                           p["out_mult"] if normalize else 127)])
    k = sram.alloc("abuf", consts.size, "row constants")
    big, mrow, orow = k, k + rt, k + 2 * rt
    em.load_dense("w", "abuf", k, dram.const(f"{key}.rows", consts), consts.size,
                  comment=f"{layer.name}: row constants")
    x_addr, y_addr = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    mask_addr = dram.const(f"{key}.mask", layer.mask) if masked else None
    # a few tiles (bert-tiny: one per head): one int32 tile for all, so tile i+1's passes
    # wait for tile i's last; the list scheduler would otherwise interleave them and finish
    # all late, while this way tile i is stored, and its consumer (P.V of that head) runs on
    # the matrix unit, as the vector unit works on tile i+1. With many tiles the pipeline
    # hands on finished tiles anyway, and one chain through all of them would outrank (by
    # its longest path) the consumer's requants that free the matrix unit's accumulators
    t_slots = 1 if len(tiles) <= FEW_TILES else 2
    for i, (r0, r1) in enumerate(tiles):
        r, sl, tag = r1 - r0, i % 2, f"{layer.name} rows {r0}:{r1}"
        x, t, o = (("ibuf", s["x"] + sl * rt * c), ("abuf", s["t"] + (sl % t_slots) * rt * c),
                   ("obuf", s["o"] + sl * rt * c))
        mx, sm = ("abuf", s["a"] + sl * rt), ("abuf", s["b"] + sl * rt)
        em.load_dense("in", "ibuf", x[1], x_addr + r0 * c * eb, r * c, comment=f"{tag}: scores")
        src = x
        if masked:
            mk = ("wbuf", s["m"] + sl * rt * c)
            em.load_dense("w", "wbuf", mk[1], mask_addr + (r0 % layer.period()) * c, r * c,
                          comment=f"{tag}: mask rows")
            em.row("vrmul", t, mk, r, c, ("abuf", big), shift=0, comment=f"{tag}: drops")
            em.vec("vadd", t, t, r * c, x)
            src = t
        em.row("vrmax", mx, src, r, c, comment=tag)
        em.row("vrsub", t, src, r, c, mx)
        em.row("vrmul", t, t, r, c, ("abuf", mrow), shift=p["in_shift"])
        em.vec("vexp", t, t, r * c, in_frac=p["in_frac"], out_frac=p["exp_frac"])
        if not normalize:  # round(127 e / exp(0)): each row's largest is 127
            em.row("vrmul", o, t, r, c, ("abuf", orow), shift=p["exp_frac"])
            em.store_dense("out", "obuf", o[1], y_addr + r0 * c * eb, r * c,
                           comment=f"{tag}: store")
            continue
        em.row("vrsum", sm, t, r, c)
        em.row("vrmul", sm, sm, r, 1, ("abuf", orow), shift=p["out_shift"])
        em.vec("vrecip", sm, sm, r, in_frac=p["sum_frac"], out_frac=p["recip_frac"])
        em.row("vrmul", o, t, r, c, sm, shift=p["exp_frac"] + p["recip_frac"])
        em.store_dense("out", "obuf", o[1], y_addr + r0 * c * eb, r * c, comment=f"{tag}: store")


def _layernorm(em, layer, tiles, dram, lowered, key: str) -> None:
    c, p, rt = layer.cols, layer.params, layer.schedule.rows
    eb = em.hw.act_bytes
    sram = em.sram()
    s = _slots(sram, layer, rt, False)
    ex = {"e": sram.alloc("abuf", 2 * rt, "per-row values"),
          "v": sram.alloc("abuf", 2 * rt, "per-row values")}
    # (bias, mult, shift) triples: vrequant bias=1 adds beta (sat32, as vbias) itself
    rq = np.stack([layer.bias, layer.mult, layer.shift], axis=1).astype(I32).ravel()
    consts = np.concatenate([rq, np.array([p["mean_mult"], p["eps"]], I32)])
    k = sram.alloc("abuf", consts.size, "layer norm table")
    rqa, mh, eps = k, k + 3 * c, k + 3 * c + 1
    em.load_dense("w", "abuf", k, dram.const(f"{key}.table", consts), consts.size,
                  comment=f"{layer.name}: requant triples, row constants")
    x_addr, y_addr = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    var_shift = p["mean_shift"] - (LN_VAR_FRAC - LN_MEAN_FRAC)
    x_shift = LN_RSTD_FRAC - LN_NORM_FRAC
    mean_shift = LN_MEAN_FRAC + LN_RSTD_FRAC - LN_NORM_FRAC
    for i, (r0, r1) in enumerate(tiles):
        r, sl, tag = r1 - r0, i % 2, f"{layer.name} rows {r0}:{r1}"
        x, t, o = (("ibuf", s["x"] + sl * rt * c), ("abuf", s["t"] + sl * rt * c),
                   ("obuf", s["o"] + sl * rt * c))
        s1, s2 = ("abuf", s["a"] + sl * rt), ("abuf", s["b"] + sl * rt)
        e2, var = ("abuf", ex["e"] + sl * rt), ("abuf", ex["v"] + sl * rt)
        em.load_dense("in", "ibuf", x[1], x_addr + r0 * c * eb, r * c, comment=f"{tag}: rows")
        em.row("vrsum", s1, x, r, c, comment=tag)
        em.vec("vmul", t, x, r * c, x)
        em.row("vrsum", s2, t, r, c)
        em.row("vrmul", s1, s1, 1, r, ("abuf", mh), shift=p["mean_shift"])   # mean, Q8
        em.row("vrmul", e2, s2, 1, r, ("abuf", mh), shift=var_shift)        # E[x^2], Q16
        em.vec("vmul", var, s1, r, s1)
        em.vec("vsub", var, e2, r, var)
        em.vec("vbias", var, var, r, ("abuf", eps), channels=1)
        em.vec("vrsqrt", var, var, r, in_frac=LN_VAR_FRAC, out_frac=LN_RSTD_FRAC)
        em.row("vrmul", t, x, r, c, var, shift=x_shift)                     # x / sigma
        em.row("vrmul", s1, s1, r, 1, var, shift=mean_shift)                # mu / sigma
        em.row("vrsub", t, t, r, c, s1)
        em.vec("vrequant", o, t, r * c, ("abuf", rqa), channels=c, zp=0, relu=0, bias=1)
        em.store_dense("out", "obuf", o[1], y_addr + r0 * c * eb, r * c, comment=f"{tag}: store")
