"""channel_affine: y = x * scale + shift per channel (constant Mul/Add/Sub/Div/Neg of ONNX
graphs); fold-bn folds it, like batch norm, into the conv/dense before it or a depthwise 1x1."""

from __future__ import annotations

import numpy as np

from ..errors import OpError
from . import nn  # noqa: F401  (batch norm is registered before its hook)
from .common import norm_axis, per_channel, require_float
from .registry import Attr, OpDef, register_hook, register_op


def affine_type(types, a):
    x = types[0]
    require_float(x, "channel_affine input")
    axis = norm_axis(a["axis"], x.rank)
    for name, t in zip(("scale", "shift"), types[1:]):
        if t.shape != (x.shape[axis],):
            raise OpError(f"channel_affine {name} {t} must have {x.shape[axis]} elements "
                          f"(axis {a['axis']} of {x})")
    return x


def affine_compute(arr, a):
    x, scale, shift = arr
    axis = a["axis"] % x.ndim
    return (x * per_channel(scale, axis, x.ndim) + per_channel(shift, axis, x.ndim)) \
        .astype(x.dtype)


register_op(OpDef("nn.channel_affine", ("data", "scale", "shift"), affine_type, affine_compute,
                  (Attr("axis", "int", 1),),
                  doc="x * scale + shift, one (scale, shift) per channel along `axis`",
                  traits=("channel_axis",)))


def _bn_affine(consts, attrs):
    from .nn import batch_norm_scale_shift
    return batch_norm_scale_shift(*consts, attrs["epsilon"])


# fold-bn folds every op with an 'affine' hook; the hook gives its float64 (scale, shift)
register_hook("affine", "nn.batch_norm", value=_bn_affine)
register_hook("affine", "nn.channel_affine",
              value=lambda consts, attrs: (np.asarray(consts[0], np.float64),
                                           np.asarray(consts[1], np.float64)))
# a bias_add with no conv/dense before it (an ONNX Add of a per-channel constant after a
# pool): scale 1; fold-bn leaves the ones right after a conv/dense to fuse
register_hook("affine", "nn.bias_add",
              value=lambda consts, attrs: (np.ones(np.shape(consts[0]), np.float64),
                                           np.asarray(consts[0], np.float64)))
register_hook("quantize_hint", "nn.channel_affine",
              value="run 'fold-bn' first (a per-channel scale of a 2-D tensor with no "
                    "dense before it has no NPU lowering)")
