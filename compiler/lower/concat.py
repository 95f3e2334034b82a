"""Concatenation: each input's rows copied through SRAM into its slice of the output (int8:
requantized to the output scale on the way, as qnn.concat's semantics say); a constant input
(ViT's class token prepended to the patch tokens) is loaded from the constants region."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from ..ops import get_op, register_hook
from .cost import FIELD_MAX, Hw
from .layer import NoMacs


@dataclass
class ConcatLayer(NoMacs):
    """y = concat(xs, axis); part i: outer rows of `inner[i]` elements at column offset
    `offset[i]` of the output's rows of `total` elements."""

    name: str
    xs: list
    y: str
    outer: int
    inner: list
    total: int
    mults: list | None = None     # int8: per input (mult, shift) to the output scale
    shifts: list | None = None
    rows: int = 1                 # rows per chunk
    kind: str = "concat"
    note: str = ""
    consts: dict = field(default_factory=dict)  # part index -> a constant part (ViT's class
    #                                             token), copied from the constants by DMA

    @property
    def inputs(self) -> list:
        """The activation parts (the constant parts are not tensors of the program)."""
        return [x for i, x in enumerate(self.xs) if i not in self.consts]

    @property
    def const_elems(self) -> int:
        """Elements of the constant parts: compulsory DRAM reads, as a layer's weights."""
        return sum(int(c.size) for c in self.consts.values())

    def chunks(self) -> list:
        """(input index, first row, end row, first column, end column) per load/store pair."""
        out = []
        for i, inner in enumerate(self.inner):
            rows = max(1, min(self.rows, FIELD_MAX["rows"]))
            for r0 in range(0, self.outer, rows):
                for c0 in range(0, inner, FIELD_MAX["cols"]):
                    out.append((i, r0, min(r0 + rows, self.outer), c0,
                                min(c0 + FIELD_MAX["cols"], inner)))
        return out


def make_concat(name: str, xs: list, y: str, shapes: list, axis: int, hw: Hw,
                mults=None, shifts=None, consts: dict | None = None) -> ConcatLayer:
    rank = len(shapes[0])
    axis = axis % rank
    outer = prod(shapes[0][:axis])
    inner = [prod(s[axis:]) for s in shapes]
    cap = min(hw.buffer_elems["ibuf"], hw.buffer_elems["obuf"]) // 2
    rows = max(1, min(outer, cap // max(min(max(inner), FIELD_MAX["cols"]), 1)))
    layer = ConcatLayer(name, xs, y, outer, inner, sum(inner), mults, shifts, rows,
                        consts=dict(consts or {}))
    if layer.consts:
        layer.note = f"constant part(s) {sorted(layer.consts)} copied from the constants"
    return layer


@register_hook("lower", "concat", "qnn.concat")
def lower_concat(lw, n) -> None:
    """Each input's rows into its column slice (qnn: requantized to the output's scale); a
    constant input's rows come from the constants region (DMA), as a weight's do."""
    shapes = [lw.g.type_of(v).shape for v in n.inputs]
    q = get_op(n.op).quantized
    consts = {i: lw.weights(v) for i, v in enumerate(n.inputs) if v in lw.g.constants}
    lw.layers.append(make_concat(
        n.name, list(n.inputs), n.output, shapes, n.attrs.get("axis", 1), lw.hw,
        list(n.attrs["mults"]) if q else None, list(n.attrs["shifts"]) if q else None,
        consts))
