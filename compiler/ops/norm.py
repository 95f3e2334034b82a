"""Layer normalization over the last axis: the float op nn.layer_norm, its integer form
qnn.layer_norm (vector-unit row reductions, vrsqrt, per-channel requantize) and its quantize
rule."""

from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..ir.types import TensorType
from .common import norm_axis, require_float
from .registry import REQUIRED, Attr, OpDef, register_hook, register_op


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


# ------------------------------------------------------------------ qnn.layer_norm
# Per row of H elements (docs/transformers.md): S1 = vrsum(x), S2 = vrsum(x * x), the mean
# mu = S1 * 2^8 / H (Q8) and E[x^2] = S2 * 2^16 / H (Q16) by one vrmul each (a 1-row tile of
# the per-row sums times one multiplier), var = E[x^2] - mu^2 + eps (Q16), rstd = vrsqrt(var)
# (Q<rstd_frac>), n = vrmul(x, rstd) - vrmul(mu, rstd) (the tile, and a rows x 1 tile of the
# means; vrsub: Q12), then the per-channel epilogue: vbias (beta / gamma in Q12) and vrequant
# (gamma / s_out / 2^12). Seven passes over the tile, the rest over per-row values.

LN_MEAN_FRAC = 8     # the mean and the centred values in Q8: x - mu to 2^-9
LN_VAR_FRAC = 16     # E[x^2] and the variance in Q16 (int8 squares < 2^14: below 2^30)
LN_RSTD_FRAC = 22    # 1/sigma in Q22: sigma >= sqrt(eps) / s_x keeps it below 2^31
LN_NORM_FRAC = 12    # normalized values (|n| <= sqrt(H)) in Q12
I8, I32 = np.int8, np.int32


def mean_params(h: int) -> tuple:
    """(mult, shift) with mult / 2^shift = 2^LN_MEAN_FRAC / h, mult < 2^31, shift <= 31 (the
    vrmul field); E[x^2] reuses mult with shift - (LN_VAR_FRAC - LN_MEAN_FRAC)."""
    shift = 31
    while shift > LN_VAR_FRAC - LN_MEAN_FRAC and \
            round(2.0 ** (LN_MEAN_FRAC + shift) / h) >= 1 << 31:
        shift -= 1
    return int(round(2.0 ** (LN_MEAN_FRAC + shift) / h)), shift


def qlayer_norm_type(types, a) -> TensorType:
    from .qnn import expect_dtypes
    x = types[0]
    expect_dtypes(types, ("int8", "int32", "int32", "int32"), "qnn.layer_norm")
    for name, t in zip(("bias", "mult", "shift"), types[1:]):
        if t.shape != (x.shape[-1],):
            raise OpError(f"qnn.layer_norm {name} {t} must have {x.shape[-1]} elements")
    return x


def layer_norm_int(x: np.ndarray, bias, mult, shift, a) -> np.ndarray:
    """The vector-unit sequence over (rows, H) int8 -> int8 (see above)."""
    from isa import semantics as sem
    h = x.shape[-1]
    rows = x.size // h
    t = x.reshape(-1)
    s1 = sem.row_sum(t, rows, h, I32)
    s2 = sem.row_sum(sem.elementwise("vmul", t, t, I32), rows, h, I32)
    m_mult, m_shift = a["mean_mult"], a["mean_shift"]
    mu = sem.row_mul(s1, np.array([m_mult], I32), m_shift, 1, rows, I32)
    ex2 = sem.row_mul(s2, np.array([m_mult], I32), m_shift - (LN_VAR_FRAC - LN_MEAN_FRAC), 1,
                      rows, I32)
    var = sem.elementwise("vsub", ex2, sem.elementwise("vmul", mu, mu, I32), I32)
    var = sem.bias_add(var, np.array([a["eps"]], I32), 1, I32)
    rstd = sem.vrsqrt(var, LN_VAR_FRAC, LN_RSTD_FRAC, I32)
    xr = sem.row_mul(t, rstd, LN_RSTD_FRAC - LN_NORM_FRAC, rows, h, I32)         # x / sigma
    mr = sem.row_mul(mu, rstd, LN_MEAN_FRAC + LN_RSTD_FRAC - LN_NORM_FRAC, rows, 1, I32)
    n = sem.row_sub(xr, mr, rows, h, I32)                                        # Q12
    n = sem.bias_add(n, bias, h, I32)
    return sem.requantize(n, mult, shift, 0, False, h).reshape(x.shape)


register_op(OpDef("qnn.layer_norm", ("data", "bias", "mult", "shift"), qlayer_norm_type,
                  lambda arr, a: layer_norm_int(arr[0], arr[1], arr[2], arr[3], a),
                  (Attr("mean_mult", "int", REQUIRED), Attr("mean_shift", "int", REQUIRED),
                   Attr("eps", "int", REQUIRED, min=1)),
                  doc="int8 layer norm over the last axis: vrsum, vrmul, vrsqrt, vrsub, vrmul "
                  "on the vector unit, then vbias + vrequant per channel (gamma, beta)",
                  quantized=True))


def _quantize_layer_norm(qz, n) -> None:
    from .. import qscheme as qs
    x, s_in = qz.input(n)
    s_out = qz.calibrated(n.output)
    h = qz.f.type_of(x).shape[-1]
    gamma = np.asarray(qz.f.constants[n.inputs[1]], np.float64)
    beta = np.asarray(qz.f.constants[n.inputs[2]], np.float64)
    # a channel whose gamma is (near) 0 keeps a floor: beta / gamma must stay finite
    floor = max(float(np.abs(gamma).max()), 1e-12) * 1e-4
    g = np.where(np.abs(gamma) < floor, np.where(gamma < 0, -floor, floor), gamma)
    bias = qs.saturate(np.rint(beta / g * (1 << LN_NORM_FRAC)), np.int32)
    pairs = [qs.quantize_multiplier(abs(v) / (s_out * (1 << LN_NORM_FRAC))) for v in g]
    mult = np.array([p[0] if v >= 0 else -p[0] for p, v in zip(pairs, g)], np.int32)
    shift = np.array([p[1] for p in pairs], np.int32)
    m_mult, m_shift = mean_params(h)
    eps = int(np.clip(np.rint(n.attrs["epsilon"] / (s_in * s_in) * (1 << LN_VAR_FRAC)), 1,
                      1 << 30))
    qz.emit(n, "qnn.layer_norm", [x, qz.const(f"{n.name}.bias_q", bias),
                                  qz.const(f"{n.name}.mult", mult),
                                  qz.const(f"{n.name}.shift", shift)], s_out,
            mean_mult=m_mult, mean_shift=m_shift, eps=eps)


register_hook("quantize", "nn.layer_norm", value=_quantize_layer_norm)
