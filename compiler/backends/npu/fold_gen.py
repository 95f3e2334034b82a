"""NPU code of a folded-input copy (compiler.lower.fold): per (kernel column, row phase) and
chunk of rows, a load whose zero padding supplies the columns left and right of the image,
and a store into that column's slice of the channels."""

from __future__ import annotations

from ...lower.fold import FoldCopyLayer
from .generators import register_generator


@register_generator(FoldCopyLayer, items=lambda layer, hw: layer.pieces())
def gen_fold_copy(em, layer, pieces, dram, lowered, key: str) -> None:
    f, g = layer.f, layer.f.new
    x0, eb = f.geom, em.hw.act_bytes
    run = f.sw * x0.cin                        # one rewritten pixel of one row phase
    size = layer.rows * g.w * run
    # stage through obuf when small: the conv after it fills ibuf, and a copy that shares no
    # SRAM with it lets the conv start on the first rows while the copy goes on
    stage = "obuf" if 8 * size <= em.hw.buffer_elems["obuf"] else "ibuf"
    base = em.sram().alloc(stage, 2 * size, "fold slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    for k, (n, b, ry, r0, r1) in enumerate(pieces):
        lo, count, before, after = layer.columns(b)
        slot = base + (k % 2) * size
        tag = f"{layer.name} column {b} phase {ry} rows {r0}:{r1}"
        # source pixel column of output column lo: (lo + b - left) * sw
        src = x + (((n * x0.h + r0 * f.sh + ry) * x0.w + (lo + b - f.left) * f.sw) * x0.cin) * eb
        em.load("in", stage, slot, src, count, run, run * eb, r1 - r0, f.sh * x0.w * x0.cin * eb,
                pads=(before, after, 0, 0), comment=tag)
        dst = y + ((n * g.h + r0) * g.w * g.cin + (b * f.sh + ry) * run) * eb
        em.store("out", stage, slot, dst, g.w, run, g.cin * eb, r1 - r0, g.w * g.cin * eb,
                 comment=f"{tag}: store")
