"""Strided data movement ops (slice, expand_as, upsample_nearest): any dtype, planned as
strided DMA copies on the NPU (compiler/lower/strided.py)."""

from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..ir.types import TensorType
from .common import LAYOUT_ATTR, make, nchw, norm_axis
from .registry import REQUIRED, Attr, OpDef, register_hook, register_op


def slice_type(types, a) -> TensorType:
    x = types[0]
    axis = norm_axis(a["axis"], x.rank)
    if not 0 <= a["start"] < a["end"] <= x.shape[axis]:
        raise OpError(f"slice [{a['start']}:{a['end']}] of axis {a['axis']} is empty or outside "
                      f"{x} (size {x.shape[axis]})")
    shape = list(x.shape)
    shape[axis] = a["end"] - a["start"]
    return x.with_shape(tuple(shape))


def slice_compute(arr, a):
    x = arr[0]
    index = [slice(None)] * x.ndim
    index[a["axis"] % x.ndim] = slice(a["start"], a["end"])
    return np.ascontiguousarray(x[tuple(index)])


register_op(OpDef("slice", ("data",), slice_type, slice_compute,
                  (Attr("axis", "int", 1), Attr("start", "int", REQUIRED, min=0),
                   Attr("end", "int", REQUIRED, min=1)),
                  doc="x[..., start:end, ...] along `axis` (ONNX Split, Slice of one axis)",
                  traits=("channel_axis", "any_dtype")))


def expand_type(types, a) -> TensorType:
    x, like = types
    try:
        shape = np.broadcast_shapes(x.shape, like.shape)
    except ValueError:
        shape = None
    if shape != like.shape:
        raise OpError(f"expand_as: {x} does not broadcast to {like.shape} (numpy rules)")
    return like.with_dtype(x.dtype)


register_op(OpDef("expand_as", ("data", "like"), expand_type,
                  lambda arr, a: np.ascontiguousarray(np.broadcast_to(arr[0], arr[1].shape)),
                  doc="data broadcast to the shape of `like` (whose values are not read): the "
                      "operand of a broadcasting multiply or add, repeated by DMA",
                  traits=("elementwise", "any_dtype")))


def upsample_type(types, a) -> TensorType:
    n, c, h, w = nchw(types[0], a["layout"])
    sh, sw = a["scales"]
    e = a["edge"]
    return make(n, c, h * sh + 2 * e, w * sw + 2 * e, a["layout"], types[0].dtype)


def upsample_compute(arr, a):
    sh, sw = a["scales"]
    hw = (2, 3) if a["layout"] == "NCHW" else (1, 2)
    y = np.repeat(np.repeat(arr[0], sh, axis=hw[0]), sw, axis=hw[1])
    if a["edge"]:
        pads = [(0, 0)] * 4
        pads[hw[0]] = pads[hw[1]] = (a["edge"], a["edge"])
        y = np.pad(y, pads, mode="edge")
    return y


register_op(OpDef("upsample_nearest", ("data",), upsample_type, upsample_compute,
                  (Attr("scales", "ints", REQUIRED, length=2, min=1),
                   Attr("edge", "int", 0, choices=(0, 1)), LAYOUT_ATTR),
                  doc="nearest-neighbour upsampling by integer factors (ONNX Resize/Upsample, "
                      "mode nearest), with `edge` border pixels repeated around it (bilinear "
                      "resize is this and a fixed depthwise 3x3 conv)",
                  traits=("windowed", "any_dtype")))


# ---------------------------------------------------------------- quantization rules
def _quantize_move(qz, n) -> None:
    """Data movement keeps its op and its input's scale."""
    x, s_in = qz.input(n)
    rest = [qz.need_act(n, v) for v in n.inputs[1:]]
    qz.emit(n, n.op, [x, *rest], s_in, **n.attrs)


def _quantize_upsample(qz, n) -> None:
    qz.need_nhwc(n)
    _quantize_move(qz, n)


register_hook("quantize", "slice", "expand_as", value=_quantize_move)
register_hook("quantize", "upsample_nearest", value=_quantize_upsample)


# ---------------------------------------------------------------- depth to space
def _d2s_perm(a) -> tuple:
    """The permutation of the (n, h, w, s, s, c) [DCR] / (n, h, w, c, s, s) [CRD] view of an
    NHWC input that gives the (n, h, s, w, s, c) output."""
    return (0, 1, 3, 2, 4, 5) if a["mode"] == "DCR" else (0, 1, 4, 2, 5, 3)


def d2s_blocks(a) -> tuple:
    return a["block"], a["block_w"] or a["block"]


def d2s_view(nhwc_shape, a) -> tuple:
    """The 6-D view of an NHWC input whose _d2s_perm is the output."""
    n, h, w, c = nhwc_shape
    bh, bw = d2s_blocks(a)
    return (n, h, w, bh, bw, c // (bh * bw)) if a["mode"] == "DCR" else \
        (n, h, w, c // (bh * bw), bh, bw)


def d2s_type(types, a) -> TensorType:
    n, c, h, w = nchw(types[0], a["layout"])
    bh, bw = d2s_blocks(a)
    if c % (bh * bw):
        raise OpError(f"depth_to_space blocks {bh}x{bw}: {c} channels do not divide by "
                      f"{bh * bw}")
    return make(n, c // (bh * bw), h * bh, w * bw, a["layout"], types[0].dtype)


def d2s_compute(arr, a):
    x = arr[0]
    nhwc = x.transpose(0, 2, 3, 1) if a["layout"] == "NCHW" else x
    n, h, w, c = nhwc.shape
    bh, bw = d2s_blocks(a)
    y = nhwc.reshape(d2s_view(nhwc.shape, a)).transpose(_d2s_perm(a))
    y = y.reshape(n, h * bh, w * bw, c // (bh * bw))
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2) if a["layout"] == "NCHW" else y)


register_op(OpDef("depth_to_space", ("data",), d2s_type, d2s_compute,
                  (Attr("block", "int", REQUIRED, min=1), Attr("block_w", "int", 0, min=0),
                   Attr("mode", "str", "DCR", choices=("DCR", "CRD")), LAYOUT_ATTR),
                  doc="channels to blocks of block x block_w pixels (block_w 0: square; ONNX "
                      "DepthToSpace, and the interleave of a ConvTranspose's stride phases)",
                  traits=("windowed", "any_dtype")))
register_hook("quantize", "depth_to_space", value=_quantize_upsample)
