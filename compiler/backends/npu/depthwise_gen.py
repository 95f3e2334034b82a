"""NPU code of a row-Toeplitz depthwise conv (compiler.lower.depthwise): per channel, gather
its padded row windows from NHWC, one `gemm` per kernel row against its stationary Toeplitz
tile, the epilogue on the channel's accumulators and a scatter of each row block to NHWC."""

from __future__ import annotations

import numpy as np

from ...lower.depthwise import DepthwiseLayer, store_role
from .epilogue_gen import EpilogueCode
from .generators import register_generator


@register_generator(DepthwiseLayer, items=lambda layer, hw: layer.channels())
def gen_depthwise(em, layer, chans, dram, lowered, key: str) -> None:
    hw, g, s, epi = em.hw, layer.geom, layer.schedule, layer.epilogue
    eb = hw.act_bytes
    sram = em.sram()
    a_tile, acc_tile, w_chan = s.blocks * s.hp * s.k, s.m * s.n, g.kh * s.k * s.n
    ep = EpilogueCode(em, sram, dram, epi, g.cout, acc_tile, key)
    abase = sram.alloc("ibuf", 2 * a_tile, "window slots")
    wbase = sram.alloc("wbuf", 2 * s.group * w_chan, "toeplitz weight slots")
    acc = sram.alloc("abuf", 2 * acc_tile, "accumulator slots")
    obase = sram.alloc("obuf", 2 * acc_tile, "out slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    ep.prologue(layer.name)
    out_role = store_role(hw.dma_engines)
    if g.pads[0] or g.pads[2]:
        # the zero rows above and below each block: written once, the gathers never touch them
        zeros = dram.const(f"{key}.zeros", np.zeros(a_tile, layer.weights.dtype))
        for slot in range(min(2, len(chans))):
            em.load_dense("in", "ibuf", abase + slot * a_tile, zeros, a_tile,
                          comment=f"{layer.name}: zero rows of window slot {slot}")
    for gi in range(0, len(chans), s.group):
        group = chans[gi:gi + s.group]
        packed = np.concatenate([layer.toeplitz(c).ravel() for c in group])
        wa = wbase + ((gi // s.group) % 2) * s.group * w_chan
        em.load_dense("w", "wbuf", wa, dram.const(f"{key}.w{group[0]}", packed), packed.size,
                      comment=f"{layer.name} channels {group[0]}:{group[-1] + 1}: weights")
        for ci, c in enumerate(group):
            slot = (gi + ci) % 2
            aa, ac, oa = abase + slot * a_tile, acc + slot * acc_tile, obase + slot * acc_tile
            tag = f"{layer.name} channel {c}"
            for b in range(s.blocks):
                lo, before, count, after = layer.window(b)
                em.load("in", "ibuf", aa + (b * s.hp + g.pads[0]) * s.k,
                        x + (lo * g.cin + c) * eb, count, 1, g.cin * eb, planes=g.h,
                        plane_stride=g.w * g.cin * eb, pads=(before, after, 0, 0),
                        comment=f"{tag}: windows of block {b}")
            for ky in range(g.kh):
                em.gemm(aa + ky * s.k, wa + (ci * g.kh + ky) * s.k * s.n, ac, s.m, s.k, s.n,
                        ky > 0, comment=f"{tag}: kernel row {ky}")
            ep.emit(ac, oa, None, acc_tile, 1, c, tag)
            for b in range(s.blocks):
                em.store(out_role, "obuf", oa + b * s.hp * s.n, y + (b * s.n * g.cout + c) * eb,
                         s.n, 1, g.cout * eb, planes=g.oh, plane_stride=g.ow * g.cout * eb,
                         comment=f"{tag}: store block {b}")
