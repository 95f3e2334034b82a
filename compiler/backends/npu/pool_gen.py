"""NPU code of pooling: input rows (with the window's halo) into ibuf slots, vmaxpool or
vsumpool with per-tile pool_* registers, then (average) the scale, and a strided store."""

from __future__ import annotations

import numpy as np

from ...lower.pool import PoolLayer
from .generators import register_generator


@register_generator(PoolLayer, items=lambda layer, hw: layer.tiles())
def gen_pool(em, layer, tiles, dram, lowered, key: str) -> None:
    hw, g, s = em.hw, layer.geom, layer.schedule
    eb = hw.act_bytes
    sram = em.sram()
    in_rows = min((s.rows - 1) * g.sh + g.kh, g.h)
    in_tile, out_tile = in_rows * g.w * s.channels, s.rows * g.ow * s.channels
    # pooling has no weights: its input stages through wbuf, so it shares no SRAM with the
    # conv before it (whose input fills ibuf) and the two overlap
    ibase = sram.alloc("wbuf", s.in_slots * in_tile, "input slots")
    obase = sram.alloc("obuf", 2 * out_tile, "out slots")
    avg = layer.pool == "avg"
    quant = hw.dtype == "int8"
    if avg:
        sbase = sram.alloc("abuf", 2 * out_tile, "sum slots")
        if quant:
            table = np.array([layer.mult, layer.shift], np.int32)
        else:  # the scale as a vector: vmul has no scalar operand
            table = np.full(out_tile, layer.scale, np.float32)
        ta = sram.alloc("abuf", table.size, "scale")
        em.load_dense("w", "abuf", ta, dram.const(f"{key}.scale", table), table.size,
                      comment=f"{layer.name}: scale")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    for k, (n, r0, r1, c0, c1) in enumerate(tiles):
        i0, i1, pt, pb = g.in_rows(r0, r1)
        cs, oh = c1 - c0, r1 - r0
        ia = ibase + (k % s.in_slots) * in_tile
        oa = obase + (k % 2) * out_tile
        tag = f"{layer.name} rows {r0}:{r1} ch {c0}:{c1}"
        src = x + ((n * g.h + i0) * g.w * g.cin + c0) * eb
        em.rows_io("load", "in", "wbuf", ia, src, i1 - i0, g.w, cs, g.cin, eb,
                   f"{tag}: input rows {i0}:{i1}")
        regs = {"pool_kh": g.kh, "pool_kw": g.kw, "pool_stride_h": g.sh, "pool_stride_w": g.sw,
                "pool_pad_top": pt, "pool_pad_left": g.pads[1], "pool_pad_bottom": pb,
                "pool_pad_right": g.pads[3]}
        count = oh * g.ow * cs
        if not avg:
            em.pool("vmaxpool", ("obuf", oa), ("wbuf", ia), i1 - i0, g.w, cs, count, regs,
                    hw.pool(oh, g.ow, g.kh, g.kw, cs, "vmaxpool"), comment=tag)
        else:
            sa = sbase + (k % 2) * out_tile
            em.pool("vsumpool", ("abuf", sa), ("wbuf", ia), i1 - i0, g.w, cs, count, regs,
                    hw.pool(oh, g.ow, g.kh, g.kw, cs, "vsumpool"), comment=tag)
            if quant:
                em.vec("vrequant", ("obuf", oa), ("abuf", sa), count, ("abuf", ta), channels=1)
            else:
                em.vec("vmul", ("abuf", sa), ("abuf", sa), count, ("abuf", ta))
                em.vec("vcopy", ("obuf", oa), ("abuf", sa), count)
        dst = y + ((n * g.oh + r0) * g.ow * g.cout + c0) * eb
        em.rows_io("store", "out", "obuf", oa, dst, oh, g.ow, cs, g.cout, eb, f"{tag}: store")
