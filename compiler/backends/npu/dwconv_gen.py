"""NPU code of a standalone depthwise-mode conv (compiler.lower.dwconv): every block's taps
resident (two loads); per band of output rows and group of channel blocks, one 3-D load (a
plane per block, a row per pixel), a `dwconv` and its epilogue per block, one 3-D store; the
groups rotate through `slots` input and output slots, the loads over one or both engines
(compiler.lower.dwconv.load_roles)."""

from __future__ import annotations

from ...lower.dwconv import DwconvLayer, block_taps, load_roles
from .epilogue_gen import EpilogueCode
from .generators import register_generator


@register_generator(DwconvLayer, items=lambda layer, hw: layer.items(hw.cols))
def gen_dwconv(em, layer, items, dram, lowered, key: str) -> None:
    hw, g, s, epi = em.hw, layer.geom, layer.schedule, layer.epilogue
    eb, cols = hw.act_bytes, hw.cols
    cb = min(cols, g.cout)
    sram = em.sram()
    n_in = max(g.in_rows(it.r0, it.r1)[1] - g.in_rows(it.r0, it.r1)[0] for it in items)
    k = max(len(it.blocks) for it in items)
    in_tile, out_tile = k * n_in * g.w * cb, k * s.rows * g.ow * cb
    acc_tile = s.rows * g.ow * cb
    ep = EpilogueCode(em, sram, dram, epi, g.cout, acc_tile, key)
    ibase = sram.alloc("ibuf", s.slots * in_tile, "input group slots")
    taps = block_taps(layer.weights, cols)
    wbase = sram.alloc("wbuf", taps.size, "every block's taps")
    abase = sram.alloc("abuf", 2 * acc_tile, "accumulator slots")
    obase = sram.alloc("obuf", s.slots * out_tile, "output group slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    taps_at = dram.const(f"{key}.taps", taps)
    # the first group's taps on the input's engine, the rest beside the epilogue table on
    # the weights': one load of all would hold the first dwconv behind the table (12 bytes a
    # channel against the taps' 9)
    first = g.kh * g.kw * items[0].blocks[-1][1] if items[0].blocks[0][0] == 0 else 0
    if first:
        em.load_dense("in", "wbuf", wbase, taps_at, first,
                      comment=f"{layer.name}: taps of the first group")
    if taps.size > first:
        em.load_dense("w", "wbuf", wbase + first, taps_at + first * eb, taps.size - first,
                      comment=f"{layer.name}: taps of the other channels")
    ep.prologue(layer.name)
    acc = 0
    for n, it in enumerate(items):
        i0, i1, pt, pb = g.in_rows(it.r0, it.r1)
        c0, c = it.blocks[0][0], it.blocks[0][1] - it.blocks[0][0]
        planes, mi, mo = len(it.blocks), (i1 - i0) * g.w, (it.r1 - it.r0) * g.ow
        ia, oa = ibase + (n % s.slots) * in_tile, obase + (n % s.slots) * out_tile
        in_role, out_role = load_roles(s, n, hw.dma_engines)
        tag = f"{layer.name} rows {it.r0}:{it.r1} channels {c0}:{it.blocks[-1][1]}"
        # a plane per block: the band's pixels (full rows: one stride) x its c channels
        em.load(in_role, "ibuf", ia, x + (i0 * g.w * g.cin + c0) * eb, mi, c, g.cin * eb,
                planes=planes, plane_stride=c * eb, comment=f"{tag}: input rows {i0}:{i1}")
        regs = {"conv_kh": g.kh, "conv_kw": g.kw, "conv_stride_h": g.sh, "conv_stride_w": g.sw,
                "conv_pad_top": pt, "conv_pad_left": g.pads[1], "conv_pad_bottom": pb,
                "conv_pad_right": g.pads[3], "conv_dilation_h": g.dh, "conv_dilation_w": g.dw}
        for b, (b0, b1) in enumerate(it.blocks):
            aa = abase + (acc % 2) * acc_tile
            acc += 1
            em.dwconv(ia + b * mi * c, wbase + g.kh * g.kw * b0, aa, i1 - i0, g.w, c, False,
                      regs, mo * c, g.kh, g.kw, mo, comment=f"{tag}: block {b0}:{b1}")
            ep.emit(aa, oa + b * mo * c, None, mo * c, c, b0, f"{tag}: block {b0}:{b1}")
        em.store(out_role, "obuf", oa, y + (it.r0 * g.ow * g.cout + c0) * eb, mo, c,
                 g.cout * eb, planes=planes, plane_stride=c * eb, comment=f"{tag}: store")
