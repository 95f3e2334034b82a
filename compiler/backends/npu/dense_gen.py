"""NPU code of a single-row dense layer with swapped roles: the input vector sits in wbuf as
the stationary k x 1 operand, transposed weight tiles stream from ibuf (m = output features),
then the vector epilogue over the output tile."""

from __future__ import annotations

from ...lower.dense import DenseLayer
from .epilogue_gen import EpilogueCode
from .generators import register_generator


@register_generator(DenseLayer, items=lambda layer, hw: layer.tiles(hw))
def gen_dense(em, layer, tiles, dram, lowered, key: str) -> None:
    hw, s, epi = em.hw, layer.schedule, layer.epilogue
    eb = hw.act_bytes
    sram = em.sram()
    nt = s.n_tile
    ep = EpilogueCode(em, sram, dram, epi, layer.n, nt, key)
    w_tile = nt * (s.k_block or hw.rows) * s.group
    xa = sram.alloc("wbuf", layer.k, "input vector")
    ibase = sram.alloc("ibuf", s.w_slots * w_tile, "weight slots")
    abase = sram.alloc("abuf", 2 * nt, "accumulator slots")
    obase = sram.alloc("obuf", 2 * nt * (2 if epi.residual else 1), "out slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    ep.prologue(layer.name)
    em.load_dense("in", "wbuf", xa, x, layer.k, comment=f"{layer.name}: input vector")
    wslot = 0
    for ti, (n0, n1, loads) in enumerate(tiles):
        aa = abase + (ti % 2) * nt
        first = True
        for blocks in loads:
            wa = ibase + wslot * w_tile
            wslot = (wslot + 1) % s.w_slots
            k0, k1 = blocks[0][0], blocks[-1][1]
            tag = f"{layer.name} out {n0}:{n1} in {k0}:{k1}"
            packed = layer.packed_tile(n0, n1, blocks)
            em.load_dense("w", "ibuf", wa, dram.const(f"{key}.w{n0}.{k0}", packed),
                          packed.size, comment=f"{tag}: weights (transposed)")
            off = 0
            for b0, b1 in blocks:
                em.gemm(wa + off, xa + b0, aa, n1 - n0, b1 - b0, 1, not first,
                        comment=f"{layer.name} out {n0}:{n1} in {b0}:{b1}")
                off += (n1 - n0) * (b1 - b0)
                first = False
        oa = obase + (ti % 2) * nt * (2 if epi.residual else 1)
        ra = None
        if epi.residual:
            ra = oa + nt
            em.load_dense("res", "obuf", ra, dram.addr(lowered, epi.residual) + n0 * eb,
                          n1 - n0, comment=f"{layer.name} out {n0}:{n1}: residual")
        ep.emit(aa, oa, ra, n1 - n0, n1 - n0, n0, f"{layer.name} out {n0}:{n1}")
        em.store_dense("out", "obuf", oa, y + n0 * eb, n1 - n0,
                       comment=f"{layer.name} out {n0}:{n1}: store")
