"""Layer normalization over the last axis: the float op (its integer form is qnn.layer_norm,
compiler/ops/qnorm.py)."""

from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..ir.types import TensorType
from .common import norm_axis, require_float
from .registry import Attr, OpDef, register_op


def layer_norm_type(types, a) -> TensorType:
    x = types[0]
    require_float(x, "layer_norm input")
    if norm_axis(a["axis"], x.rank) != x.rank - 1:
        raise OpError(f"layer_norm normalizes the last axis only (axis -1), got axis "
                      f"{a['axis']} of {x}; transpose the axis last first")
    for name, t in zip(("gamma", "beta"), types[1:]):
        if t.shape != (x.shape[-1],):
            raise OpError(f"layer_norm {name} {t} must have {x.shape[-1]} elements (the last "
                          f"axis of {x})")
    return x


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * gamma + beta over the last axis (float64 inside)."""
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=-1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (x64 - mean) / np.sqrt(var + eps) * gamma + beta
    return y.astype(x.dtype)


register_op(OpDef("nn.layer_norm", ("data", "gamma", "beta"), layer_norm_type,
                  lambda arr, a: layer_norm(arr[0], arr[1], arr[2], a["epsilon"]),
                  (Attr("axis", "int", -1), Attr("epsilon", "float", 1e-5, min=0.0)),
                  doc="(x - mean) / sqrt(var + epsilon) * gamma + beta over the last axis"))
