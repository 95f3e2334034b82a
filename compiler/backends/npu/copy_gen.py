"""NPU code of a planned data movement: each chunk's strided loads into an ibuf slot, then
its strided stores (layout changes, space-to-depth, transposes)."""

from __future__ import annotations

from ...lower.copy import CopyLayer
from .generators import register_generator


@register_generator(CopyLayer, items=lambda layer, hw: layer.chunks)
def gen_copy(em, layer, chunks, dram, lowered, key: str) -> None:
    eb = em.hw.act_bytes
    size = max(c.elems for c in chunks)
    stage = "obuf" if 8 * size <= em.hw.buffer_elems["obuf"] else "ibuf"  # see fold_gen
    base = em.sram().alloc(stage, 2 * size, "copy slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    for k, c in enumerate(chunks):
        slot = base + (k % 2) * size
        for d in c.loads:
            em.load("in", stage, slot + d.sram, x + d.dram * eb, d.rows, d.cols, d.stride * eb,
                    d.planes, d.plane_stride * eb, comment=f"{layer.name} chunk {k}")
        for d in c.stores:
            em.store("out", stage, slot + d.sram, y + d.dram * eb, d.rows, d.cols,
                     d.stride * eb, d.planes, d.plane_stride * eb,
                     comment=f"{layer.name} chunk {k}")
