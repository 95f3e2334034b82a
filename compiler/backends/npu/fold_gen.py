"""NPU code of a folded-input copy (compiler.lower.fold): per (kernel column, row phase) and
chunk of rows its plan's load, whose zero padding supplies the columns left and right of the
image, and store into that column's slice of the channels."""

from __future__ import annotations

from ...lower.fold import FoldCopyLayer
from .copy_plan_gen import conv_room, emit_moves
from .generators import register_generator


@register_generator(FoldCopyLayer, items=lambda layer, hw: layer.pieces())
def gen_fold_copy(em, layer, pieces, dram, lowered, key: str) -> None:
    size = layer.slot
    # the two slots where the conv leaves room (copy_plan_gen.conv_room); else the old rule
    stage = conv_room(em.hw, layer, lowered, 2 * size) or \
        ("obuf" if 8 * size <= em.hw.buffer_elems["obuf"] else "ibuf")
    # the copy's loads and stores go on the weights' channel: its conv's input loads (on the
    # activations' channel) then never queue behind the copy, which runs ahead of the conv.
    # Split over cores a barrier follows the copy, so nothing overlaps it: the stores go on
    # the results' channel and four slots keep both channels busy (npu-server's ResNet-50
    # stem copy 29.8k -> 19.9k cycles; its port time is 18.7k)
    alone = em.hw.num_cores > 1
    slots = max(2, min(4, em.hw.buffer_elems[stage] // size)) if alone else 2
    base = em.sram().alloc(stage, slots * size, "fold slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    for k, piece in enumerate(pieces):
        n, b, ry, r0, r1 = piece
        emit_moves(em, layer.plan(piece), stage, base + (k % slots) * size, None, x, y,
                   "w", "out" if alone else "w",
                   f"{layer.name} column {b} phase {ry} rows {r0}:{r1}")
