"""Float elementwise and activation ops: relu, clip, sigmoid, softmax, add, mul, identity."""

from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..ir.types import TensorType
from .common import broadcast, norm_axis, require_float, same_dtype
from .registry import Attr, OpDef, register_op


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
    return unary_type(types, a)


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    z = x.astype(np.float32) - x.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


def sigmoid(x: np.ndarray) -> np.ndarray:
    # 0.5 * (1 + tanh(x/2)) never overflows, unlike 1 / (1 + exp(-x)).
    return (0.5 * (1.0 + np.tanh(0.5 * x.astype(np.float64)))).astype(x.dtype)


register_op(OpDef("nn.relu", ("data",), unary_type,
                  lambda arr, a: np.maximum(arr[0], 0).astype(arr[0].dtype), doc="max(x, 0)"))
register_op(OpDef("clip", ("data",), clip_type,
                  lambda arr, a: np.clip(arr[0], a["min"], a["max"]).astype(arr[0].dtype),
                  (Attr("min", "float", -np.inf), Attr("max", "float", np.inf)),
                  doc="min(max(x, min), max); ReLU6 is clip(0, 6)"))
register_op(OpDef("sigmoid", ("data",), unary_type, lambda arr, a: sigmoid(arr[0]),
                  doc="1 / (1 + exp(-x))"))
register_op(OpDef("nn.softmax", ("data",), softmax_type,
                  lambda arr, a: softmax(arr[0], a["axis"]), (Attr("axis", "int", -1),),
                  doc="exp(x) / sum(exp(x)) along `axis`"))
register_op(OpDef("add", ("lhs", "rhs"), binary_type,
                  lambda arr, a: (arr[0] + arr[1]).astype(arr[0].dtype),
                  doc="elementwise sum, numpy broadcasting"))
register_op(OpDef("multiply", ("lhs", "rhs"), binary_type,
                  lambda arr, a: (arr[0] * arr[1]).astype(arr[0].dtype),
                  doc="elementwise product, numpy broadcasting"))
register_op(OpDef("identity", ("data",), lambda types, a: types[0], lambda arr, a: arr[0],
                  doc="the input unchanged (removed by SimplifyInference)"))
register_op(OpDef("nn.dropout", ("data",), lambda types, a: types[0], lambda arr, a: arr[0],
                  (Attr("rate", "float", 0.5, min=0.0),),
                  doc="inference dropout: the identity (removed by SimplifyInference)"))
