"""Slice, broadcast (expand_as) and nearest upsampling lowered as strided DMA copies: each
output element's source is an affine function of its index (a slice adds an offset, a
broadcast or a repeated pixel has source stride 0), so the copy planner of copy.py moves
them through SRAM in chunks without a vector instruction."""

from __future__ import annotations

from ..ops import register_hook
from .copy import CopyLayer, _strides, plan_strided


def _append(lw, n, x: str, dims: list, src_base: int = 0) -> None:
    """A copy layer of node `n` from `x` over `dims` (count, source stride, output stride)."""
    shape = lw.g.type_of(x).shape
    chunks = plan_strided(dims, lw.hw.buffer_elems["ibuf"] // 2, src_base, n.name,
                          f"of {n.op} {shape} -> {lw.g.type_of(n.output).shape}")
    # kind: the C-like backends' copy kernel reads shape/perm, which these layers do not fill
    lw.layers.append(CopyLayer(n.name, x, n.output, shape, tuple(range(len(shape))), chunks,
                               kind="strided_copy"))


@register_hook("lower", "slice")
def lower_slice(lw, n) -> None:
    x = n.inputs[0]
    shape, out = lw.g.type_of(x).shape, lw.g.type_of(n.output).shape
    axis = n.attrs["axis"] % len(shape)
    src, dst = _strides(shape), _strides(out)
    _append(lw, n, x, list(zip(out, src, dst)), n.attrs["start"] * src[axis])


@register_hook("lower", "expand_as")
def lower_expand(lw, n) -> None:
    x = n.inputs[0]
    out = lw.g.type_of(n.output).shape
    shape = (1,) * (len(out) - len(lw.g.type_of(x).shape)) + lw.g.type_of(x).shape
    src = [s if d > 1 else 0 for s, d in zip(_strides(shape), shape)]
    _append(lw, n, x, list(zip(out, src, _strides(out))))


@register_hook("lower", "upsample_nearest")
def lower_upsample(lw, n) -> None:
    x = n.inputs[0]
    nb, h, w, c = lw.g.type_of(x).shape  # NHWC (convert-layout runs windowed ops NHWC)
    sh, sw = n.attrs["scales"]
    src = _strides((nb, h, w, c))
    out = (nb, h, sh, w, sw, c)  # row-major, this is the (n, h*sh, w*sw, c) output
    dims = list(zip(out, (src[0], src[1], 0, src[2], 0, 1), _strides(out)))
    _append(lw, n, x, dims)
