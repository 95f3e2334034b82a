"""Float neural-network ops (conv, dense, pooling, batch norm): types and numpy semantics."""

from __future__ import annotations

import numpy as np

from .. import qscheme as qs
from ..errors import OpError, QuantizationError
from ..ir.types import TensorType
from . import exact, kernels
from .common import (LAYOUT_ATTR, WINDOW_ATTRS, make, nchw, norm_axis, per_channel,
                     require_float, same_dtype, window_out)
from .registry import REQUIRED, Attr, OpDef, register_hook, register_op

KERNEL_LAYOUTS = ("OIHW", "HWIO")
CONV_ATTRS = WINDOW_ATTRS + (
    Attr("dilations", "ints", (1, 1), length=2, min=1),
    Attr("groups", "int", 1, min=1),
    LAYOUT_ATTR,
    Attr("kernel_layout", "str", "OIHW", choices=KERNEL_LAYOUTS),
)


def kernel_dims(w: TensorType, kernel_layout: str) -> tuple:
    """(kh, kw, cin_per_group, cout) of conv weights in `kernel_layout`."""
    if w.rank != 4:
        raise OpError(f"weights must be 4-D {kernel_layout}, got {w}")
    if kernel_layout == "OIHW":
        cout, cin_g, kh, kw = w.shape
    else:
        kh, kw, cin_g, cout = w.shape
    return kh, kw, cin_g, cout


def conv2d_type(types, a) -> TensorType:
    x, w = types[0], types[1]
    require_float(x, "conv2d input")
    dtype = same_dtype([x, w], "conv2d input and weights")
    n, c, h, wd = nchw(x, a["layout"])
    kh, kw, cin_g, cout = kernel_dims(w, a["kernel_layout"])
    g = a["groups"]
    if c % g or cout % g:
        raise OpError(f"groups={g} must divide input channels ({c}) and output channels "
                      f"({cout})")
    if cin_g != c // g:
        raise OpError(f"weights {w} expect {cin_g} input channels per group, the input "
                      f"{x} has {c} channels / groups {g} = {c // g}")
    oh, ow = window_out(h, wd, (kh, kw), a, a["dilations"])
    return make(n, cout, oh, ow, a["layout"], dtype)


def hwio(w: np.ndarray, kernel_layout: str) -> np.ndarray:
    return w.transpose(2, 3, 1, 0) if kernel_layout == "OIHW" else w


def conv2d_compute(arrays, a):
    x = kernels.to_nhwc(arrays[0], a["layout"])
    out = kernels.conv2d_nhwc(x, hwio(arrays[1], a["kernel_layout"]), a["strides"], a["pads"],
                              a["dilations"], a["groups"])
    return kernels.from_nhwc(out, a["layout"]).astype(arrays[0].dtype, copy=False)


register_op(OpDef("nn.conv2d", ("data", "weight"), conv2d_type, conv2d_compute, CONV_ATTRS,
                  doc="2-D convolution with groups (depthwise when groups = channels)",
                  traits=("windowed",)))
register_hook("fused_as", "nn.conv2d", value="fused.conv2d")


def dense_type(types, a) -> TensorType:
    x, w = types
    require_float(x, "dense input")
    dtype = same_dtype([x, w], "dense input and weights")
    if w.rank != 2 or x.shape[-1] != w.shape[0]:
        raise OpError(f"dense computes x @ w with w of shape (in, out); x {x} has "
                      f"{x.shape[-1]} features, w is {w}")
    return TensorType(x.shape[:-1] + (w.shape[1],), dtype)


register_op(OpDef("nn.dense", ("data", "weight"), dense_type,
                  lambda arr, a: exact.matmul(arr[0], arr[1], b_constant=True).astype(arr[0].dtype),
                  doc="x @ w, weights (in_features, out_features)"))
register_hook("fused_as", "nn.dense", value="fused.dense")


def matmul_type(types, a) -> TensorType:
    x, y = types
    require_float(x, "matmul input")
    dtype = same_dtype(types, "matmul inputs")
    try:
        shape = np.matmul(np.empty(x.shape, np.int8), np.empty(y.shape, np.int8)).shape
    except ValueError:
        raise OpError(f"matmul of {x} and {y}: inner dimensions or batch shapes differ") from None
    return TensorType(shape, dtype)


def matmul_compute(arr, a):
    y = exact.matmul(arr[0], arr[1])
    return (y * np.float32(a["alpha"]) if a["alpha"] != 1.0 else y).astype(arr[0].dtype)


register_op(OpDef("nn.matmul", ("a", "b"), matmul_type, matmul_compute,
                  (Attr("alpha", "float", 1.0),),
                  doc="alpha * numpy matmul of two tensors (both may be activations, batch "
                  "axes broadcast); alpha: attention's 1/sqrt(d) scale"))


def bias_add_type(types, a) -> TensorType:
    x, b = types
    same_dtype(types, "bias_add input and bias")
    axis = norm_axis(a["axis"], x.rank)
    if b.shape != (x.shape[axis],):
        raise OpError(f"bias {b} must be 1-D with {x.shape[axis]} elements (axis {a['axis']} "
                      f"of {x})")
    return x


def bias_add_compute(arr, a):
    x, b = arr
    axis = a["axis"] % x.ndim
    return (x + per_channel(b, axis, x.ndim)).astype(x.dtype, copy=False)


register_op(OpDef("nn.bias_add", ("data", "bias"), bias_add_type, bias_add_compute,
                  (Attr("axis", "int", 1),), doc="add a 1-D bias along `axis`",
                  traits=("channel_axis", "bias_add")))


def batch_norm_type(types, a) -> TensorType:
    x = types[0]
    require_float(x, "batch_norm input")
    axis = norm_axis(a["axis"], x.rank)
    for name, t in zip(("gamma", "beta", "mean", "var"), types[1:]):
        if t.shape != (x.shape[axis],):
            raise OpError(f"batch_norm {name} {t} must have {x.shape[axis]} elements "
                          f"(axis {a['axis']} of {x})")
    return x


def batch_norm_scale_shift(gamma, beta, mean, var, eps):
    """Inference batch norm as y = x * scale + shift (float64 for folding accuracy)."""
    scale = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + eps)
    return scale, beta.astype(np.float64) - mean.astype(np.float64) * scale


def batch_norm_compute(arr, a):
    x = arr[0]
    axis = a["axis"] % x.ndim
    scale, shift = batch_norm_scale_shift(*arr[1:], a["epsilon"])
    y = x * per_channel(scale.astype(np.float32), axis, x.ndim)
    return (y + per_channel(shift.astype(np.float32), axis, x.ndim)).astype(x.dtype)


register_op(OpDef("nn.batch_norm", ("data", "gamma", "beta", "mean", "var"), batch_norm_type,
                  batch_norm_compute,
                  (Attr("epsilon", "float", 1e-5, min=0.0), Attr("axis", "int", 1)),
                  doc="inference batch normalization with running statistics",
                  traits=("channel_axis",)))

POOL_ATTRS = (Attr("kernel", "ints", REQUIRED, length=2, min=1),) + WINDOW_ATTRS + (LAYOUT_ATTR,)


def pool_type(types, a) -> TensorType:
    x = types[0]
    n, c, h, w = nchw(x, a["layout"])
    oh, ow = window_out(h, w, a["kernel"], a)
    return make(n, c, oh, ow, a["layout"], x.dtype)


def max_pool_compute(arr, a):
    x = kernels.to_nhwc(arr[0], a["layout"])
    return kernels.from_nhwc(kernels.max_pool_nhwc(x, a["kernel"], a["strides"], a["pads"]),
                             a["layout"])


def avg_pool_compute(arr, a):
    x = kernels.to_nhwc(arr[0], a["layout"])
    out = kernels.avg_pool_nhwc(x, a["kernel"], a["strides"], a["pads"],
                                a["count_include_pad"])
    return kernels.from_nhwc(out, a["layout"]).astype(arr[0].dtype)


def _float_pool_type(types, a):
    require_float(types[0], "pool input")
    return pool_type(types, a)


register_op(OpDef("nn.max_pool2d", ("data",), _float_pool_type, max_pool_compute, POOL_ATTRS,
                  doc="max pooling; padding never wins",
                  traits=("windowed",)))
register_op(OpDef("nn.avg_pool2d", ("data",), _float_pool_type, avg_pool_compute,
                  POOL_ATTRS + (Attr("count_include_pad", "bool", False),),
                  doc="average pooling (ONNX count_include_pad semantics)",
                  traits=("windowed",)))


def global_pool_type(types, a) -> TensorType:
    require_float(types[0], "global_avg_pool2d input")
    n, c, h, w = nchw(types[0], a["layout"])
    return make(n, c, 1, 1, a["layout"], types[0].dtype)


def global_pool_compute(arr, a):
    axes = (2, 3) if a["layout"] == "NCHW" else (1, 2)
    return arr[0].mean(axis=axes, keepdims=True, dtype=np.float32).astype(arr[0].dtype)


register_op(OpDef("nn.global_avg_pool2d", ("data",), global_pool_type, global_pool_compute,
                  (LAYOUT_ATTR,), doc="mean over the spatial axes, keeping them as 1x1",
                  traits=("windowed",)))


# ---------------------------------------------------------------- quantization rules
def _quantize_unfused(qz, n) -> None:
    raise QuantizationError(f"node '{n.name}' ({n.op}) is not fused; run 'fuse' before "
                            "'quantize' (it makes the bias/requantize epilogue)")


def _quantize_max_pool(qz, n) -> None:
    x, s_in = qz.input(n)
    qz.need_nhwc(n)
    a = n.attrs
    qz.emit(n, "qnn.max_pool2d", [x], s_in, kernel=a["kernel"], strides=a["strides"],
            pads=a["pads"])


def _quantize_global_pool(qz, n) -> None:
    x, s_in = qz.input(n)
    qz.need_nhwc(n)
    s_out = qz.calibrated(n.output)
    _, h, w, _ = qz.f.type_of(x).shape
    m, s = qs.quantize_multiplier(s_in / (s_out * h * w))
    qz.emit(n, "qnn.global_avg_pool2d", [x], s_out, mult=m, shift=s)


def _quantize_avg_pool(qz, n) -> None:
    x, s_in = qz.input(n)
    qz.need_nhwc(n)
    a = n.attrs
    s_out = qz.calibrated(n.output)
    if any(a["pads"]) and not a["count_include_pad"]:
        raise QuantizationError(
            f"node '{n.name}': avg_pool2d with pads {a['pads']} and count_include_pad=0 "
            "divides border windows by fewer elements; vrequant has one divisor per "
            "channel (use count_include_pad=1 or no padding)")
    kh, kw = a["kernel"]
    m, s = qs.quantize_multiplier(s_in / (s_out * kh * kw))
    qz.emit(n, "qnn.avg_pool2d", [x], s_out, kernel=a["kernel"], strides=a["strides"],
            pads=a["pads"], mult=m, shift=s)


register_hook("quantize", "nn.conv2d", "nn.dense", value=_quantize_unfused)
register_hook("quantize", "nn.max_pool2d", value=_quantize_max_pool)
register_hook("quantize", "nn.avg_pool2d", value=_quantize_avg_pool)
register_hook("quantize", "nn.global_avg_pool2d", value=_quantize_global_pool)
register_hook("quantize_hint", "nn.batch_norm", value="run 'fold-bn' first")
register_hook("quantize_hint", "nn.bias_add", value="a bias must follow a conv/dense to be fused")


def _quantize_matmul(qz, n) -> None:
    from .attention import quantize_matmul  # qnn.matmul, beside qnn.softmax
    quantize_matmul(qz, n)


register_hook("quantize", "nn.matmul", value=_quantize_matmul)
