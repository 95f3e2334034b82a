"""NPU code of an im2col copy (compiler.lower.im2col): per piece the moves its plan lists,
loads into one of two slots and stores from it, zeros from a slot loaded once per core."""

from __future__ import annotations

import numpy as np

from ...lower.im2col import Im2colCopyLayer
from .copy_plan_gen import conv_room, emit_moves
from .generators import register_generator

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
    need = 2 * size + layer.zeros  # two slots and the zero slot
    stage = conv_room(em.hw, layer, lowered, need) or \
        ("obuf" if 2 * need <= em.hw.buffer_elems["obuf"] else "ibuf")
    base = em.sram().alloc(stage, need, "im2col slots")
    zbase = base + 2 * size
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    dtype = np.float16 if eb == 2 else np.int8
    zeros = dram.const(f"{key}.zeros", np.zeros(layer.zeros, dtype))
    em.load_dense("w", stage, zbase, zeros, layer.zeros, comment=f"{layer.name} zero slot")
    for k, piece in enumerate(pieces):
        n, ky, r0, r1 = piece
        emit_moves(em, layer.plan(piece), stage, base + (k % 2) * size, zbase, x, y,
                   LOAD_ROLE, STORE_ROLE, f"{layer.name} image {n} kernel row {ky} rows {r0}:{r1}")
