"""Slice, broadcast (expand_as) and nearest upsampling lowered as strided DMA copies: each
output element's source is an affine function of its index (a slice adds an offset, a
broadcast or a repeated pixel has source stride 0), so the copy planner of copy.py moves
them through SRAM in chunks without a vector instruction."""

from __future__ import annotations

from ..ops import register_hook
from .copy import CopyLayer, _strides, plan_strided


def _append(lw, n, x: str, dims: list, src_base: int = 0) -> None:
    """A copy layer of node `n` from `x` over `dims` (count, source stride, output stride)."""
    _append_pieces(lw, n, x, [(dims, src_base, 0)])


def _append_pieces(lw, n, x: str, pieces: list) -> None:
    """A copy layer of node `n` from `x`: each piece (dims, source base, output base)."""
    shape = lw.g.type_of(x).shape
    what = f"of {n.op} {shape} -> {lw.g.type_of(n.output).shape}"
    chunks = [c for dims, src, dst in pieces
              for c in plan_strided(dims, lw.hw.buffer_elems["ibuf"] // 2, src, n.name, what,
                                    dst)]
    # kind "gather": the C-like backends' copy kernel reads shape/perm, which these do not fill
    lw.layers.append(CopyLayer(n.name, x, n.output, shape, tuple(range(len(shape))), chunks,
                               kind="gather"))


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


def _axis_pieces(size: int, factor: int, edge: int, src_stride: int, dst_stride: int):
    """One axis of an upsampling with `edge` repeated border pixels: (dims, source offset,
    output offset) per piece - the border before, the repeated body, the border after."""
    body = [(size, src_stride, factor * dst_stride), (factor, 0, dst_stride)]
    if not edge:
        return [(body, 0, 0)]
    return [([(1, 0, dst_stride)], 0, 0), (body, 0, dst_stride),
            ([(1, 0, dst_stride)], (size - 1) * src_stride, (factor * size + 1) * dst_stride)]


@register_hook("lower", "upsample_nearest")
def lower_upsample(lw, n) -> None:
    x = n.inputs[0]
    nb, h, w, c = lw.g.type_of(x).shape  # NHWC (convert-layout runs windowed ops NHWC)
    sh, sw = n.attrs["scales"]
    _, oh, ow, _ = lw.g.type_of(n.output).shape
    e = n.attrs.get("edge", 0)
    rows = _axis_pieces(h, sh, e, w * c, ow * c)
    cols = _axis_pieces(w, sw, e, c, c)
    pieces = [([(nb, h * w * c, oh * ow * c)] + rd + cd + [(c, 1, 1)], rs + cs, ro + co)
              for rd, rs, ro in rows for cd, cs, co in cols]
    _append_pieces(lw, n, x, pieces)


@register_hook("lower", "depth_to_space")
def lower_depth_to_space(lw, n) -> None:
    from ..ops.movement import _d2s_perm, d2s_view
    from .copy import plan_copy
    x = n.inputs[0]
    view = d2s_view(lw.g.type_of(x).shape, n.attrs)  # of the NHWC input
    perm = _d2s_perm(n.attrs)
    chunks = plan_copy(view, perm, lw.hw.buffer_elems["ibuf"] // 2, n.name)
    lw.layers.append(CopyLayer(n.name, x, n.output, view, perm, chunks))
