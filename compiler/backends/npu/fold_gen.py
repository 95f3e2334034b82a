"""NPU code of a folded-input copy (compiler.lower.fold): per (kernel column, row phase) and
chunk of rows, a load whose zero padding supplies the columns left and right of the image,
and a store into that column's slice of the channels."""

from __future__ import annotations

from ...lower.conv import ConvLayer
from ...lower.fold import FoldCopyLayer
from .conv_gen import conv_sram
from .generators import register_generator


def _stage(hw, layer, lowered, size: int) -> str:
    """The buffer the copy's two slots go through: one its conv leaves room in (the copy
    shares no SRAM with the conv, so the conv starts on the first rows while the copy goes
    on; sharing, the conv's first outputs wait for the whole copy), obuf first (the conv
    fills ibuf); else the old rule."""
    conv = next((lay for lay in lowered.layers if layer.y in getattr(lay, "inputs", ())
                 and isinstance(lay, ConvLayer) and lay.schedule is not None), None)
    if conv is not None:
        used = conv_sram(conv, hw)
        for buf in ("obuf", "wbuf", "ibuf"):
            if used[buf] + 2 * size <= hw.buffer_elems[buf]:
                return buf
    return "obuf" if 8 * size <= hw.buffer_elems["obuf"] else "ibuf"


@register_generator(FoldCopyLayer, items=lambda layer, hw: layer.pieces())
def gen_fold_copy(em, layer, pieces, dram, lowered, key: str) -> None:
    f, g = layer.f, layer.f.new
    x0, eb = f.geom, em.hw.act_bytes
    run = f.run                                # one folded pixel of one row phase
    size = layer.rows * g.w * run
    stage = _stage(em.hw, layer, lowered, size)
    # the copy's loads and stores go on the weights' channel: its conv's input loads (on the
    # activations' channel) then never queue behind the copy, which runs ahead of the conv.
    # Split over cores a barrier follows the copy, so nothing overlaps it: the stores go on
    # the results' channel and four slots keep both channels busy (npu-server's ResNet-50
    # stem copy 29.8k -> 19.9k cycles; its port time is 18.7k)
    alone = em.hw.num_cores > 1
    slots = max(2, min(4, em.hw.buffer_elems[stage] // size)) if alone else 2
    base = em.sram().alloc(stage, slots * size, "fold slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    for k, (n, b, ry, r0, r1) in enumerate(pieces):
        lo, count, before, after = layer.columns(b)
        slot = base + (k % slots) * size
        tag = f"{layer.name} column {b} phase {ry} rows {r0}:{r1}"
        # source pixel column of output column lo: (lo + b - left) * sw, strided lo * sw + b -
        # left (a pixel every sw)
        src = x + (((n * x0.h + r0 * f.sh + ry) * x0.w + layer.source(b, lo)) * x0.cin) * eb
        em.load("w", stage, slot, src, count, run, (f.sw * x0.cin if f.strided else run) * eb,
                r1 - r0, f.sh * x0.w * x0.cin * eb, pads=(before, after, 0, 0), comment=tag)
        dst = y + ((n * g.h + r0) * g.w * g.cin + (b * f.sh + ry) * run) * eb
        em.store("out" if alone else "w", stage, slot, dst, g.w, run, g.cin * eb, r1 - r0,
                 g.w * g.cin * eb, comment=f"{tag}: store")
