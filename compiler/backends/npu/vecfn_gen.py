"""NPU code of an fp16 activation program (compiler.lower.vecfn): its scalars and broadcast
constant vectors built once in abuf, then per chunk a load, the program's vector steps over
float32 temporaries and a store."""

from __future__ import annotations

import numpy as np

from ...lower.vecfn import VecFnLayer, constants, temporaries
from .generators import register_generator


@register_generator(VecFnLayer, items=lambda layer, hw: layer.chunks())
def gen_vecfn(em, layer, chunks, dram, lowered, key: str) -> None:
    hw, steps = em.hw, layer.steps
    eb, c = hw.act_bytes, layer.schedule.chunk
    sram = em.sram()
    vecs, scalars = constants(steps)
    table = np.array(scalars + vecs, np.float32)
    xa = sram.alloc("ibuf", 2 * c, "input slots")
    ya = sram.alloc("obuf", 2 * c, "out slots")
    ta = sram.alloc("abuf", table.size, "scalars")
    za = sram.alloc("abuf", c, "zero vector")
    where = {f"k{v!r}": ("abuf", sram.alloc("abuf", c, f"constant {v!r}")) for v in vecs}
    where.update({t: ("abuf", sram.alloc("abuf", c, f"temporary {t}")) for t in
                  temporaries(steps)})
    em.load_dense("w", "abuf", ta, dram.const(f"{key}.scalars", table), table.size,
                  comment=f"{layer.name}: scalars")
    em.load_dense("w", "abuf", za, dram.const(f"{key}.zeros", np.zeros(c, np.float32)), c,
                  comment=f"{layer.name}: zero vector")
    for i, v in enumerate(vecs):  # 0 + v, broadcast (channels=1)
        em.vec("vbias", where[f"k{v!r}"], ("abuf", za), c, ("abuf", ta + len(scalars) + i),
               channels=1, comment=f"{layer.name}: constant {v!r}")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    for k, (e0, e1) in enumerate(chunks):
        n, s = e1 - e0, k % 2
        tag = f"{layer.name} elems {e0}:{e1}"
        where["x"], where["y"] = ("ibuf", xa + s * c), ("obuf", ya + s * c)
        em.load_dense("in", "ibuf", xa + s * c, x + e0 * eb, n, comment=f"{tag}: input")
        for i, (mn, dst, a, b) in enumerate(steps):
            extra = {"comment": tag} if i == 0 else {}
            if mn == "vbias":
                em.vec(mn, where[dst], where[a], n, ("abuf", ta + scalars.index(float(b))),
                       channels=1, **extra)
            elif mn == "vclip":
                em.vec(mn, where[dst], where[a], n, lo=b[0], hi=b[1], **extra)
            elif b is None:
                em.vec(mn, where[dst], where[a], n, **extra)
            else:
                em.vec(mn, where[dst], where[a], n, where[b], **extra)
        em.store_dense("out", "obuf", ya + s * c, y + e0 * eb, n, comment=f"{tag}: store")
