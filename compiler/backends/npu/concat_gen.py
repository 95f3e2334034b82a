"""NPU code of a concatenation: per input, row chunks loaded, (int8) requantized to the output
scale by vrequant, and stored with the output's row stride at the input's column offset."""

from __future__ import annotations

import numpy as np

from ...lower.concat import ConcatLayer
from .generators import register_generator


@register_generator(ConcatLayer, items=lambda layer, hw: layer.chunks())
def gen_concat(em, layer, chunks, dram, lowered, key: str) -> None:
    eb = em.hw.act_bytes
    sram = em.sram()
    size = max((r1 - r0) * (c1 - c0) for _, r0, r1, c0, c1 in chunks)
    ibase = sram.alloc("ibuf", 2 * size, "in slots")
    quant = layer.mults is not None
    if quant:
        obase = sram.alloc("obuf", 2 * size, "out slots")
        table = np.array([v for m, s in zip(layer.mults, layer.shifts) for v in (m, s)], np.int32)
        ta = sram.alloc("abuf", table.size, "requant pairs")
        em.load_dense("w", "abuf", ta, dram.const(f"{key}.rq", table), table.size,
                      comment=f"{layer.name}: requant pairs")
    y = dram.addr(lowered, layer.y)
    offsets = np.concatenate([[0], np.cumsum(layer.inner)[:-1]])
    for k, (i, r0, r1, c0, c1) in enumerate(chunks):
        rows, cols = r1 - r0, c1 - c0
        tag = f"{layer.name} input {i} rows {r0}:{r1}"
        base = dram.const(f"{key}.part{i}", layer.consts[i]) if i in layer.consts else \
            dram.addr(lowered, layer.xs[i])  # a constant part: from the constants region
        src = base + (r0 * layer.inner[i] + c0) * eb
        slot = ibase + (k % 2) * size
        em.load("in", "ibuf", slot, src, rows, cols, layer.inner[i] * eb, comment=tag)
        buf, addr = "ibuf", slot
        if quant:
            buf, addr = "obuf", obase + (k % 2) * size
            em.vec("vrequant", (buf, addr), ("ibuf", slot), rows * cols, ("abuf", ta + 2 * i),
                   channels=1)
        dst = y + (r0 * layer.total + int(offsets[i]) + c0) * eb
        em.store("out", buf, addr, dst, rows, cols, layer.total * eb, comment=f"{tag}: store")
