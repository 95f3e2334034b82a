"""Float elementwise and activation ops: relu, clip, sigmoid, softmax, add, mul, identity."""

from __future__ import annotations

import numpy as np

from .. import qscheme as qs
from ..errors import OpError, QuantizationError
from ..ir.types import TensorType
from . import exact
from .common import broadcast, norm_axis, require_float, same_dtype
from .registry import Attr, OpDef, register_hook, register_op


def unary_type(types, a) -> TensorType:
    require_float(types[0], "input")
    return types[0]


def binary_type(types, a) -> TensorType:
    for t in types:
        require_float(t, "input")
    return TensorType(broadcast(types), same_dtype(types))


def clip_type(types, a) -> TensorType:
    if a["min"] > a["max"]:
        raise OpError(f"clip min {a['min']} is greater than max {a['max']}")
    return unary_type(types, a)


def softmax_type(types, a) -> TensorType:
    norm_axis(a["axis"], types[0].rank)
    if len(types) > 1 and broadcast(types) != types[0].shape:
        raise OpError(f"softmax mask {types[1]} must broadcast to the scores {types[0]}")
    return unary_type(types[:1], a)


def softmax(x: np.ndarray, axis: int, mask: np.ndarray | None = None) -> np.ndarray:
    if mask is not None:  # an additive mask (0 kept, a large negative value dropped)
        x = x + mask
    z = x.astype(np.float32) - x.max(axis=axis, keepdims=True)
    e = exact.exp(z)  # float64 exp rounded: numpy's float32 exp is CPU-specific SIMD
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


def sigmoid(x: np.ndarray) -> np.ndarray:
    # 0.5 * (1 + tanh(x/2)) never overflows, unlike 1 / (1 + exp(-x)).
    return (0.5 * (1.0 + np.tanh(0.5 * x.astype(np.float64)))).astype(x.dtype)


register_op(OpDef("nn.relu", ("data",), unary_type,
                  lambda arr, a: np.maximum(arr[0], 0).astype(arr[0].dtype, copy=False),
                  doc="max(x, 0)", traits=("elementwise",)))
register_op(OpDef("clip", ("data",), clip_type,
                  lambda arr, a: np.clip(arr[0], a["min"], a["max"]).astype(arr[0].dtype,
                                                                            copy=False),
                  (Attr("min", "float", -np.inf), Attr("max", "float", np.inf)),
                  doc="min(max(x, min), max); ReLU6 is clip(0, 6)",
                  traits=("elementwise",)))
register_hook("fuse_act", "nn.relu", value=lambda n: {"kind": "relu", "min": 0.0, "max": 6.0})
register_hook("fuse_act", "clip",
              value=lambda n: {"kind": "clip", "min": n.attrs["min"], "max": n.attrs["max"]})
register_op(OpDef("sigmoid", ("data",), unary_type, lambda arr, a: sigmoid(arr[0]),
                  doc="1 / (1 + exp(-x))",
                  traits=("elementwise",)))
register_op(OpDef("nn.softmax", ("data", "mask?"), softmax_type,
                  lambda arr, a: softmax(arr[0], a["axis"], arr[1] if len(arr) > 1 else None),
                  (Attr("axis", "int", -1),),
                  doc="exp(x + mask) / sum(exp(x + mask)) along `axis` (mask: an optional "
                  "additive constant, 0 where kept: a causal or padding mask)",
                  traits=("channel_axis",)))
register_op(OpDef("add", ("lhs", "rhs"), binary_type,
                  lambda arr, a: (arr[0] + arr[1]).astype(arr[0].dtype, copy=False),
                  doc="elementwise sum, numpy broadcasting",
                  traits=("elementwise", "residual_add")))
register_op(OpDef("multiply", ("lhs", "rhs"), binary_type,
                  lambda arr, a: (arr[0] * arr[1]).astype(arr[0].dtype, copy=False),
                  doc="elementwise product, numpy broadcasting",
                  traits=("elementwise",)))
register_op(OpDef("identity", ("data",), lambda types, a: types[0], lambda arr, a: arr[0],
                  doc="the input unchanged (removed by SimplifyInference)",
                  traits=("alias", "pass_through", "elementwise", "any_dtype")))
register_op(OpDef("nn.dropout", ("data",), lambda types, a: types[0], lambda arr, a: arr[0],
                  (Attr("rate", "float", 0.5, min=0.0),),
                  doc="inference dropout: the identity (removed by SimplifyInference)",
                  traits=("alias", "pass_through", "elementwise")))


# ---------------------------------------------------------------- quantization rules
def _quantize_identity(qz, n) -> None:
    x, s_in = qz.input(n)
    qz.emit(n, "identity", [x], s_in)


def _quantize_relu(qz, n) -> None:
    x, s_in = qz.input(n)
    qz.emit(n, "qnn.relu", [x], s_in)


def _quantize_clip(qz, n) -> None:
    x, s_in = qz.input(n)
    lo, hi = qs.clip_bounds(n.attrs["min"], n.attrs["max"], s_in)
    qz.emit(n, "qnn.clip", [x], s_in, lo=lo, hi=hi)


def _quantize_binary(qz, n) -> None:
    x, s_in = qz.input(n)
    y = qz.need_act(n, n.inputs[1])
    if qz.f.type_of(x) != qz.f.type_of(y):
        raise QuantizationError(f"node '{n.name}' ({n.op}) broadcasts {qz.f.type_of(x)} "
                                f"with {qz.f.type_of(y)}; the NPU needs equal shapes")
    return x, y, s_in, qz.calibrated(n.output)


def _quantize_add(qz, n) -> None:
    if n.inputs[1] in qz.f.constants or n.inputs[0] in qz.f.constants:
        return _quantize_add_constant(qz, n)
    x, y, s_in, s_out = _quantize_binary(qz, n)
    lm, rm, sh = qs.add_params(s_in / s_out, qz.scale[y] / s_out)
    qz.emit(n, "qnn.add", [x, y], s_out, lhs_mult=lm, rhs_mult=rm, shift=sh)


def _quantize_add_constant(qz, n) -> None:
    """x + c for a constant c (a position embedding): c at x's shape, quantized with its own
    scale, and the qnn.add of two operands (the constant streamed from DRAM)."""
    x, c = (n.inputs[1], n.inputs[0]) if n.inputs[0] in qz.f.constants else n.inputs[:2]
    x = qz.need_act(n, x)
    shape = qz.f.type_of(x).shape
    full = np.broadcast_to(np.asarray(qz.f.constants[c], np.float64), shape)
    if full.shape != qz.f.type_of(n.output).shape:
        raise QuantizationError(f"node '{n.name}': the constant {list(qz.f.type_of(c).shape)} "
                                f"broadcasts {list(shape)} to a larger shape")
    s_c = qs.act_scale(float(np.abs(full).max()))
    s_out = qz.calibrated(n.output)
    lm, rm, sh = qs.add_params(qz.scale[x] / s_out, s_c / s_out)
    cq = qz.const(f"{n.name}.const_q", qs.quantize(full, s_c))
    qz.emit(n, "qnn.add", [x, cq], s_out, lhs_mult=lm, rhs_mult=rm, shift=sh)


def _quantize_multiply(qz, n) -> None:
    x, y, s_in, s_out = _quantize_binary(qz, n)
    m, s = qs.quantize_multiplier(s_in * qz.scale[y] / s_out)
    qz.emit(n, "qnn.multiply", [x, y], s_out, mult=m, shift=s)


def _quantize_sigmoid(qz, n) -> None:
    x, s_in = qz.input(n)
    s_out = qs.SIGMOID_OUT_SCALE
    table = qz.const(f"{n.name}.table", qs.sigmoid_table(s_in, s_out))
    qz.emit(n, "qnn.lut", [x, table], s_out)


register_hook("quantize", "identity", "nn.dropout", value=_quantize_identity)
register_hook("quantize", "nn.relu", value=_quantize_relu)
register_hook("quantize", "clip", value=_quantize_clip)
register_hook("quantize", "add", value=_quantize_add)
register_hook("quantize", "multiply", value=_quantize_multiply)
register_hook("quantize", "sigmoid", value=_quantize_sigmoid)
# an unmasked softmax at a graph's end runs on the host, after the NPU's output is
# dequantized (a classifier's probabilities); anywhere else it runs on the NPU
# (compiler/ops/attention.py quantizes it)
register_hook("host_step", "nn.softmax",
              value=lambda n: ("softmax", n.attrs["axis"]) if len(n.inputs) == 1 else None)


def _quantize_softmax(qz, n) -> None:
    from .attention import quantize_softmax  # the integer softmax and its parameters
    quantize_softmax(qz, n)


register_hook("quantize", "nn.softmax", value=_quantize_softmax)
