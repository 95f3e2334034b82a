"""Fused float ops made by FuseOps: conv2d/dense + bias + activation (+ residual add + act)."""

from __future__ import annotations

import numpy as np

from ..errors import OpError
from .common import per_channel
from .nn import CONV_ATTRS, conv2d_compute, conv2d_type, dense_type
from .registry import Attr, OpDef, register_op

ACTS = ("none", "relu", "clip")

# The epilogue, in the order the vector unit applies it:
#   y = act(acc + bias); if residual: y = post_act(y + residual)
EPILOGUE_ATTRS = (
    Attr("act", "str", "none", choices=ACTS),
    Attr("act_min", "float", 0.0),
    Attr("act_max", "float", 6.0),
    Attr("post_act", "str", "none", choices=ACTS),
    Attr("post_min", "float", 0.0),
    Attr("post_max", "float", 6.0),
    Attr("pre_add", "str", ""),   # name the pre-residual value had before fusion (calibration)
    Attr("pattern", "str", ""),   # the fused primitive ops, for printing
)


def activate(y: np.ndarray, kind: str, lo: float, hi: float) -> np.ndarray:
    if kind == "relu":
        return np.maximum(y, 0)
    if kind == "clip":
        return np.clip(y, lo, hi)
    return y


def epilogue(y: np.ndarray, arrays, a, channel_axis: int) -> np.ndarray:
    y = activate(y + per_channel(arrays[2], channel_axis, y.ndim), a["act"], a["act_min"],
                 a["act_max"])
    if len(arrays) > 3:
        y = activate(y + arrays[3], a["post_act"], a["post_min"], a["post_max"])
    return y.astype(arrays[0].dtype)


def _check_epilogue(types, out, channels: int):
    if types[2].shape != (channels,):
        raise OpError(f"bias {types[2]} must have {channels} elements")
    if len(types) > 3 and types[3].shape != out.shape:
        raise OpError(f"residual {types[3]} must have the output's shape {out.shape}")
    return out


def fused_conv_type(types, a):
    out = conv2d_type(types[:2], a)
    return _check_epilogue(types, out, out.shape[1 if a["layout"] == "NCHW" else 3])


def fused_conv_compute(arrays, a):
    y = conv2d_compute(arrays[:2], a)
    return epilogue(y, arrays, a, 1 if a["layout"] == "NCHW" else 3)


def fused_dense_type(types, a):
    out = dense_type(types[:2], a)
    return _check_epilogue(types, out, out.shape[-1])


def fused_dense_compute(arrays, a):
    return epilogue(np.matmul(arrays[0], arrays[1]), arrays, a, arrays[0].ndim - 1)


register_op(OpDef("fused.conv2d", ("data", "weight", "bias", "residual?"), fused_conv_type,
                  fused_conv_compute, CONV_ATTRS + EPILOGUE_ATTRS,
                  doc="conv2d + bias + act (+ residual add + act)"))
register_op(OpDef("fused.dense", ("data", "weight", "bias", "residual?"), fused_dense_type,
                  fused_dense_compute, EPILOGUE_ATTRS,
                  doc="dense + bias + act (+ residual add + act)"))
