"""The transpose and layout_transform lowering: a permuting copy in chunks (copy.py)."""

from __future__ import annotations

from ..ops import register_hook
from ..ops.shape import layout_perm
from .copy import CopyLayer, plan_copy


def _copy(lw, n, perm: tuple) -> None:
    x = lw.g.type_of(n.inputs[0])
    chunks = plan_copy(x.shape, perm, lw.hw.buffer_elems["ibuf"] // 2, n.name)
    lw.layers.append(CopyLayer(n.name, n.inputs[0], n.output, x.shape, perm, chunks))


@register_hook("lower", "transpose")
def lower_transpose(lw, n) -> None:
    if n.output in lw.absorbed:  # the matmul before it stores through it (lower/views.py)
        return
    _copy(lw, n, tuple(n.attrs["axes"]))


@register_hook("lower", "layout_transform")
def lower_layout_transform(lw, n) -> None:
    _copy(lw, n, layout_perm(n.attrs))
