"""The int8 quantization scheme: scales, weight/bias quantization, requantize multipliers.

Symmetric everywhere, zero point 0:  real = scale * q.
- activations: per-tensor, scale = max(|x|) / 127 over calibration, q in [-128, 127]
- weights: per output channel, scale[c] = max(|w[..., c]|) / 127, q in [-127, 127]
- bias: int32, q = round(b / (s_in * s_w[c]))  (the accumulator's scale)
- requantize: M[c] = s_in * s_w[c] / s_out = mult * 2^-shift, mult in [2^30, 2^31)
  (TFLite's QuantizeMultiplier), applied by vrequant with a single round-half-up shift.
Float -> int rounding (np.rint) is round-half-to-even; it only happens at compile time and on
the host, never inside the NPU datapath."""

from __future__ import annotations

import math

import numpy as np

from isa.semantics import INT32_MAX, INT32_MIN, saturate

from .errors import QuantizationError
from .ops.common import per_channel
from .parallel import over_rows

QMAX = 127
MIN_SCALE = 1e-8            # a value that is always 0 still needs a finite scale
REQUANT_MAX_SHIFT = 63      # the vrequant shift register range (isa/npu_isa.toml)
VSHR_MAX_SHIFT = 31         # the vshr shift field is 5 bits
ADD_MULT_BITS = 15          # residual-add multipliers stay below 2^15: products fit int32


def act_scale(absmax: float) -> float:
    return max(float(absmax), MIN_SCALE * QMAX) / QMAX


def quantize(x: np.ndarray, scale: float) -> np.ndarray:
    """float -> int8: sat8(rint(x / scale)) (host-side input quantization)."""
    return saturate(np.rint(np.asarray(x, np.float64) / scale), np.int8)


def dequantize(q: np.ndarray, scale: float) -> np.ndarray:
    return (np.asarray(q, np.float64) * scale).astype(np.float32)


def weight_scales(w: np.ndarray, axis: int) -> np.ndarray:
    """Per-channel symmetric scales along `axis`; all-zero channels get scale 1."""
    other = tuple(i for i in range(w.ndim) if i != axis % w.ndim)
    # max |x| as max(max x, -min x): exact, and no |w| copy
    absmax = np.maximum(w.max(axis=other), -w.min(axis=other)).astype(np.float64)
    return np.where(absmax > 0, absmax / QMAX, 1.0)


CHUNK = 1 << 15  # float64 elements of quantize_weights' working buffer (256 KB: stays in cache)


def quantize_weights(w: np.ndarray, axis: int) -> tuple:
    """(int8 weights in [-127, 127], float64 scales per channel along `axis`)."""
    s = weight_scales(w, axis)
    axis %= w.ndim
    if axis != w.ndim - 1 or w.size <= CHUNK or w.shape[-1] > CHUNK:
        q = np.divide(w, per_channel(s, axis, w.ndim), dtype=np.float64)
        np.clip(np.rint(q, out=q), -QMAX, QMAX, out=q)  # in place: one float64 temporary
        return q.astype(np.int8), s
    # channel last (HWIO, dense (in, out)): whole rows at a time through one small float64
    # buffer, the same divide/rint/clip per element without a float64 copy of the tensor
    rows = w.reshape(-1, w.shape[-1])
    out = np.empty(rows.shape, np.int8)
    step = CHUNK // rows.shape[1]

    def quantize_rows(lo: int, hi: int) -> None:  # in row blocks over the cores
        buf = np.empty((step, rows.shape[1]))
        for a in range(lo, hi, step):
            t = buf[:min(step, hi - a)]
            np.divide(rows[a:a + len(t)], s, out=t)
            np.clip(np.rint(t, out=t), -QMAX, QMAX, out=t)
            out[a:a + len(t)] = t
    over_rows(rows.shape[0], rows.shape[1], quantize_rows)
    return out.reshape(w.shape), s


def quantize_bias(b: np.ndarray, acc_scales: np.ndarray) -> np.ndarray:
    """int32 bias in the accumulator's scale (s_in * s_w[c]), saturated."""
    return saturate(np.rint(b.astype(np.float64) / acc_scales), np.int32)


def quantize_multiplier(m: float) -> tuple:
    """Real multiplier m > 0 -> (mult, shift) with m ~= mult * 2^-shift, as TFLite's
    QuantizeMultiplier: m = q * 2^e with q in [0.5, 1), mult = round(q * 2^31), shift = 31 - e.
    Tiny multipliers (shift > 63) give up low mult bits; m >= 2^31 is rejected."""
    if not math.isfinite(m) or m < 0:
        raise QuantizationError(f"requantize multiplier {m} must be finite and >= 0")
    if m == 0:
        return 0, 0
    q, e = math.frexp(m)
    mult = int(round(q * (1 << 31)))
    if mult == 1 << 31:  # q rounded up to 1.0
        mult, e = mult // 2, e + 1
    shift = 31 - e
    if shift < 0:
        raise QuantizationError(f"requantize multiplier {m:g} >= 2^31 cannot be represented "
                                "(shift would be negative); the scales are inconsistent")
    if shift > REQUANT_MAX_SHIFT:
        drop = shift - REQUANT_MAX_SHIFT
        mult = (mult + (1 << (drop - 1))) >> drop
        shift = REQUANT_MAX_SHIFT
    return mult, shift


def quantize_multipliers(ms: np.ndarray) -> tuple:
    """Vector form: (int32 mults, int32 shifts), element by element what quantize_multiplier
    gives, in whole-array steps (a ResNet-50 has 27k output channels: a Python call each was
    a serial 50 ms). np.frexp is math.frexp's exact split, q * 2^31 is exact, and np.rint
    rounds half to even as round() does; an invalid element raises quantize_multiplier's
    own error for the first one."""
    m = np.ravel(np.asarray(ms, np.float64))
    bad = ~np.isfinite(m) | (m < 0)
    q, e = np.frexp(np.where(bad, 1.0, m))
    mult = np.rint(q * float(1 << 31)).astype(np.int64)
    up = mult == 1 << 31  # q rounded up to 1.0
    mult[up] //= 2
    shift = 31 - (e.astype(np.int64) + up)
    bad |= (shift < 0) & (m != 0)
    if bad.any():
        quantize_multiplier(float(m[np.argmax(bad)]))  # raises, naming the first bad value
    # below 2^-32 the TFLite shift passes the register: low bits go, rounded (as >> drop with
    # a half added; a drop over 40 leaves 0 of a mult below 2^31, as Python's big ints give)
    drop = np.clip(shift - REQUANT_MAX_SHIFT, 0, 40)
    deep = drop > 0
    mult[deep] = (mult[deep] + (np.int64(1) << (drop[deep] - 1))) >> drop[deep]
    shift = np.minimum(shift, REQUANT_MAX_SHIFT)
    zero = m == 0
    mult[zero], shift[zero] = 0, 0
    return mult.astype(np.int32), shift.astype(np.int32)


def add_params(lhs_ratio: float, rhs_ratio: float) -> tuple:
    """Integer (lhs_mult, rhs_mult, shift) with lhs_mult / 2^shift ~= lhs_ratio (= s_lhs/s_out)
    and likewise rhs; the larger multiplier gets ADD_MULT_BITS bits, so
    |q * mult| <= 128 * 2^15 and the int32 sum cannot overflow."""
    top = max(lhs_ratio, rhs_ratio)
    if not (top > 0 and math.isfinite(top)):
        raise QuantizationError(f"add scale ratios {lhs_ratio}, {rhs_ratio} must be positive")
    shift = ADD_MULT_BITS - 1 - math.floor(math.log2(top))
    shift = min(max(shift, 0), VSHR_MAX_SHIFT)
    lm, rm = (int(round(r * (1 << shift))) for r in (lhs_ratio, rhs_ratio))
    if max(lm, rm) > INT32_MAX or min(lm, rm) < INT32_MIN:
        raise QuantizationError(f"add multipliers {lm}, {rm} overflow int32")
    return lm, rm, shift


def clip_bounds(lo: float, hi: float, scale: float) -> tuple:
    """A float clip range as int8 bounds in `scale` (saturated to [-128, 127])."""
    def q(v):
        return int(np.clip(np.rint(v / scale), -128, 127)) if math.isfinite(v) else \
            (127 if v > 0 else -128)
    return q(lo), q(hi)


def sigmoid_table(in_scale: float, out_scale: float) -> np.ndarray:
    """vlut table: entry i holds sat8(rint(sigmoid((i - 128) * in_scale) / out_scale))."""
    x = (np.arange(256) - 128) * in_scale
    y = 0.5 * (1.0 + np.tanh(0.5 * x))
    return saturate(np.rint(y / out_scale), np.int8)


SIGMOID_OUT_SCALE = 1.0 / QMAX  # sigmoid is in (0, 1): a fixed scale, no calibration needed
