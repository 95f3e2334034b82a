"""NPU code of an im2col copy (compiler.lower.im2col): per piece the moves its plan lists,
loads into one of two slots and stores from it, zeros from a slot loaded once per core."""

from __future__ import annotations

import numpy as np

from ...lower.conv import ConvLayer
from ...lower.im2col import Im2colCopyLayer
from .conv_gen import conv_sram
from .generators import register_generator


def _stage(hw, layer, lowered, size: int) -> str:
    """A buffer the conv that reads the copy leaves room in (then the conv starts on the first
    rows while the copy goes on), obuf first (the conv fills ibuf); else ibuf."""
    conv = next((lay for lay in lowered.layers if layer.y in getattr(lay, "inputs", ())
                 and isinstance(lay, ConvLayer) and lay.schedule is not None), None)
    if conv is not None:
        used = conv_sram(conv, hw)
        for buf in ("obuf", "wbuf", "ibuf"):
            if used[buf] + size <= hw.buffer_elems[buf]:
                return buf
    return "obuf" if 2 * size <= hw.buffer_elems["obuf"] else "ibuf"


# the copy's loads on the weights' channel, its stores on the activations': a store waits
# for its load, so the conv's weight loads (ready at once) get between the copy's loads, and
# its input loads wait for the stores of their rows anyway (measured on a 224 stem at 16
# B/cycle: 721,501 cycles, against 749,453 with both on the weights' channel)
LOAD_ROLE, STORE_ROLE = "w", "in"


@register_generator(Im2colCopyLayer, items=lambda layer, hw: layer.pieces())
def gen_im2col_copy(em, layer, pieces, dram, lowered, key: str) -> None:
    if not pieces:
        return
    eb, size = em.hw.act_bytes, layer.slot
    stage = _stage(em.hw, layer, lowered, 2 * size + layer.zeros)
    base = em.sram().alloc(stage, 2 * size + layer.zeros, "im2col slots")
    zbase = base + 2 * size
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    dtype = np.float16 if eb == 2 else np.int8
    zeros = dram.const(f"{key}.zeros", np.zeros(layer.zeros, dtype))
    em.load_dense("w", stage, zbase, zeros, layer.zeros, comment=f"{layer.name} zero slot")
    for k, piece in enumerate(pieces):
        n, ky, r0, r1 = piece
        slot = base + (k % 2) * size
        tag = f"{layer.name} image {n} kernel row {ky} rows {r0}:{r1}"
        for mv in layer.plan(piece):
            if mv.kind == "load":
                em.load(LOAD_ROLE, stage, slot + mv.sram, x + mv.dram * eb, mv.rows, mv.cols,
                        mv.stride * eb, mv.planes, mv.plane_stride * eb,
                        pads=(0, 0, *mv.pads), comment=tag)
            else:
                src = zbase if mv.zero else slot + mv.sram
                em.store(STORE_ROLE, stage, src, y + mv.dram * eb, mv.rows, mv.cols, mv.stride * eb,
                         mv.planes, mv.plane_stride * eb,
                         comment=f"{tag}: store" + (" zeros" if mv.zero else ""))
