"""Fused float ops made by FuseOps: conv2d/dense + bias + activation (+ residual add + act)."""

from __future__ import annotations

from functools import partial

import numpy as np

from .. import qscheme as qs
from ..errors import OpError, QuantizationError
from . import exact
from .common import per_channel
from .nn import CONV_ATTRS, conv2d_compute, conv2d_type, dense_type
from .registry import Attr, OpDef, register_hook, register_op

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
    return epilogue(exact.matmul(arrays[0], arrays[1], b_constant=True), arrays, a, arrays[0].ndim - 1)


register_op(OpDef("fused.conv2d", ("data", "weight", "bias", "residual?"), fused_conv_type,
                  fused_conv_compute, CONV_ATTRS + EPILOGUE_ATTRS,
                  doc="conv2d + bias + act (+ residual add + act)"))
register_op(OpDef("fused.dense", ("data", "weight", "bias", "residual?"), fused_dense_type,
                  fused_dense_compute, EPILOGUE_ATTRS,
                  doc="dense + bias + act (+ residual add + act)"))


def quantize_linear(qz, n, conv: bool) -> None:
    """fused.conv2d / fused.dense -> qnn.conv2d / qnn.dense: per-channel int8 weights, int32
    bias, requantize multipliers, clip bounds and residual-add parameters (qscheme.py)."""
    a = n.attrs
    x, w_name, b_name = n.inputs[:3]
    if w_name not in qz.f.constants:
        raise QuantizationError(f"node '{n.name}': weights '{w_name}' are computed, not "
                                "constant; only constant weights are quantized")
    if conv:
        qz.need_nhwc(n)
        if a["kernel_layout"] != "HWIO":
            raise QuantizationError(f"node '{n.name}' has {a['kernel_layout']} weights; run "
                                    "'convert-layout' first")
    w = qz.f.constants[w_name]
    w_q, s_w = qs.quantize_weights(w, axis=-1)  # HWIO and (in, out): channel is last
    s_in = qz.scale[x]
    residual = n.inputs[3] if len(n.inputs) > 3 else None
    s_out = qz.calibrated(n.output)
    s_pre = qz.calibrated(a["pre_add"]) if residual else s_out
    bias_q = qs.quantize_bias(qz.f.constants[b_name], s_in * s_w)
    mult, shift = qs.quantize_multipliers(s_in * s_w / s_pre)
    # bounds matter only for clip (relu is vrequant's flag); others keep the int8 range
    act_lo, act_hi = qs.clip_bounds(a["act_min"], a["act_max"], s_pre) \
        if a["act"] == "clip" else (-128, 127)
    attrs = {"act": a["act"], "act_lo": act_lo, "act_hi": act_hi, "out_zp": 0}
    if conv:
        attrs.update(strides=a["strides"], pads=a["pads"], dilations=a["dilations"],
                     groups=a["groups"])
    inputs = [x, qz.const(f"{n.name}.w_q", w_q), qz.const(f"{n.name}.bias_q", bias_q),
              qz.const(f"{n.name}.mult", mult), qz.const(f"{n.name}.shift", shift)]
    if residual:
        lm, rm, sh = qs.add_params(s_pre / s_out, qz.scale[residual] / s_out)
        post_lo, post_hi = qs.clip_bounds(a["post_min"], a["post_max"], s_out) \
            if a["post_act"] == "clip" else (-128, 127)
        attrs.update(lhs_mult=lm, rhs_mult=rm, add_shift=sh, post_act=a["post_act"],
                     post_lo=post_lo, post_hi=post_hi)
        inputs.append(residual)
    qz.emit(n, "qnn.conv2d" if conv else "qnn.dense", inputs, s_out, **attrs)
    qz.q.meta.setdefault("weight_scales", {})[n.name] = s_w.astype(np.float32)


register_hook("quantize", "fused.conv2d", value=partial(quantize_linear, conv=True))
register_hook("quantize", "fused.dense", value=partial(quantize_linear, conv=False))
