"""Table activations (hardswish, hardsigmoid, leaky relu, tanh, elu, gelu, power, fill): float
semantics, each quantized to one 256-entry vlut table in its calibrated output scale."""

from __future__ import annotations

from functools import partial

import numpy as np

from .. import qscheme as qs
from .common import require_float
from .registry import Attr, OpDef, register_hook, register_op


def _unary_type(types, a):
    require_float(types[0], "input")
    return types[0]


def _hardswish(x, a):
    return x * np.clip(x + 3.0, 0.0, 6.0) / 6.0


def _hardsigmoid(x, a):
    return np.clip(a["alpha"] * x + a["beta"], 0.0, 1.0)


def _leaky_relu(x, a):
    return np.where(x >= 0, x, a["alpha"] * x)


def _elu(x, a):
    return np.where(x > 0, x, a["alpha"] * np.expm1(np.minimum(x, 0.0)))


def _power(x, a):
    # LRN's (k + alpha/n * sum x^2) ** -beta: defined for positive x; 0 ** negative -> 0
    # would be infinite, the table saturates it instead
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, np.power(np.maximum(x, 1e-30), a["exponent"]), 0.0)


def _gelu(x, a):
    if a["approximate"] == "tanh":
        return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def erf(x: np.ndarray) -> np.ndarray:
    """erf to float64 precision (math.erf elementwise: exact, and fast enough for the float
    reference's tensors of a few hundred thousand elements)."""
    import math
    x = np.asarray(x, np.float64)
    return np.vectorize(math.erf, otypes=[np.float64])(x) if x.size else x


# name -> (float function of float64 x and attrs, attributes, doc)
TABLE_OPS = {
    "hardswish": (_hardswish, (), "x * clip(x + 3, 0, 6) / 6 (MobileNetV3)"),
    "hardsigmoid": (_hardsigmoid, (Attr("alpha", "float", 0.2), Attr("beta", "float", 0.5)),
                    "clip(alpha * x + beta, 0, 1)"),
    "leaky_relu": (_leaky_relu, (Attr("alpha", "float", 0.01),), "x if x >= 0 else alpha * x"),
    "tanh": (lambda x, a: np.tanh(x), (), "tanh(x)"),
    "elu": (_elu, (Attr("alpha", "float", 1.0),), "x if x > 0 else alpha * (exp(x) - 1)"),
    "power": (_power, (Attr("exponent", "float", 1.0),),
              "x ** exponent for x > 0, else 0 (LRN's normalizer)"),
    "gelu": (_gelu, (Attr("approximate", "str", "none", choices=("none", "tanh")),),
             "x * Phi(x) (ONNX Gelu, opset 20; approximate='tanh': the tanh form)"),
    "fill": (lambda x, a: np.full_like(x, a["value"]), (Attr("value", "float", 1.0),),
             "`value` wherever x is (a tensor of x's shape; the window counts of average "
             "pooling that leaves its padding out)"),
}


def table_compute(fn, arrays, a):
    x = arrays[0]
    return fn(x.astype(np.float64), a).astype(x.dtype)


def activation_table(fn, attrs: dict, in_scale: float, out_scale: float) -> np.ndarray:
    """vlut table: entry i holds sat8(rint(f((i - 128) * in_scale) / out_scale))."""
    x = (np.arange(256) - 128) * np.float64(in_scale)
    return qs.saturate(np.rint(fn(x, attrs) / out_scale), np.int8)


def quantize_table(fn, qz, n) -> None:
    """One vlut: the table maps every int8 input (its scale) to the output's scale."""
    x, s_in = qz.input(n)
    s_out = qz.calibrated(n.output)
    table = qz.const(f"{n.name}.table", activation_table(fn, n.attrs, s_in, s_out))
    qz.emit(n, "qnn.lut", [x, table], s_out)


for _name, (_fn, _attrs, _doc) in TABLE_OPS.items():
    register_op(OpDef(_name, ("data",), _unary_type, partial(table_compute, _fn), _attrs,
                      doc=_doc, traits=("elementwise",)))
    register_hook("quantize", _name, value=partial(quantize_table, _fn))
