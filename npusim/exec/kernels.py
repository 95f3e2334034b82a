"""The hot isa.semantics operations of functional runs in fewer numpy calls, bit-equal to them.

isa.semantics is the reference (one function per ISA operation, written to be read). A
network's tiles call a few of them thousands of times on small arrays, where numpy's
per-call cost is most of the time: here the same int64 arithmetic, step by step, with a
tile's values seen as pixels x channels (a per-channel table broadcast instead of gathered
per element), worked in place, clamps as one maximum and one minimum. Anything else (floats,
a length that is not a whole number of pixels) goes to the reference.
tests/npusim/test_exec_kernels.py compares each with isa.semantics on random extremes.
"""

from __future__ import annotations

import functools

import numpy as np

from isa import semantics


@functools.lru_cache(maxsize=None)
def _limits(dtype) -> tuple | None:
    """(min, max) of an integer dtype, None for a float one (np.iinfo, once per dtype)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return None
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def saturate(x: np.ndarray, dtype) -> np.ndarray:
    """semantics.saturate of an int64 array (which it may overwrite)."""
    limits = _limits(dtype)
    if limits is None or x.dtype != np.int64:
        return semantics.saturate(x, dtype)
    np.maximum(x, limits[0], out=x)
    np.minimum(x, limits[1], out=x)
    return x.astype(dtype)


def elementwise(op: str, a: np.ndarray, b: np.ndarray, dtype) -> np.ndarray:
    """semantics.elementwise: the same operation table, the clamp above."""
    if np.dtype(dtype).kind == "f":
        return semantics.elementwise(op, a, b, dtype)
    return saturate(semantics.ELEMENTWISE[op](a.astype(np.int64), b.astype(np.int64)), dtype)


def bias_add(a: np.ndarray, bias: np.ndarray, channels: int, dtype) -> np.ndarray:
    """semantics.bias_add: bias[i % channels] added to a[i]."""
    if a.dtype.kind == "f" or a.size % channels:
        return semantics.bias_add(a, bias, channels, dtype)
    y = a.reshape(-1, channels).astype(np.int64)
    y += bias[:channels].astype(np.int64)
    return saturate(y, dtype).reshape(-1)


def requant_table(mult: np.ndarray, shift: np.ndarray) -> tuple:
    """(multiplier, shift, rounding half) per channel as int64: a layer's table, worked out
    once (npusim.exec.vector caches it by the table's bytes)."""
    s = shift.astype(np.int64)
    # round half up: + 2^(shift-1) before the arithmetic shift (semantics.round_shift)
    return mult.astype(np.int64), s, np.where(s > 0, np.left_shift(np.int64(1), np.maximum(s - 1, 0)), 0)


def requantize_by(acc: np.ndarray, table: tuple, zp: int, relu: bool) -> np.ndarray:
    """requantize with a requant_table, its channels a whole number of pixels of `acc`."""
    mult, s, half = table
    y = acc.reshape(-1, mult.size).astype(np.int64)
    y *= mult
    y += half
    y >>= s
    y += zp
    # relu clamps at zp, then int8 saturation: max(y, zp, -128) and min(.., 127)
    np.maximum(y, max(zp, semantics.INT8_MIN) if relu else semantics.INT8_MIN, out=y)
    np.minimum(y, semantics.INT8_MAX, out=y)
    return y.astype(np.int8).reshape(-1)


def requantize(acc, mult, shift, zp: int, relu: bool, channels: int) -> np.ndarray:
    """semantics.requantize: sat8(round_shift(acc * mult[c], shift[c]) + zp), c = i % channels,
    relu clamping at zp; the ReLU and the int8 saturation one clamp."""
    if acc.size % channels:
        return semantics.requantize(acc, mult, shift, zp, relu, channels)
    return requantize_by(acc, requant_table(mult[:channels], shift[:channels]), zp, relu)


# float32 holds every integer below 2^24 exactly: int8 x int8 products are at most 2^14, so
# the partial sums of up to 2^10 of them (in any order, fused or not) are exact float32 ints
F32_EXACT_DEPTH = 2 ** 10


def gemm(a: np.ndarray, w: np.ndarray, acc: np.ndarray | None = None) -> np.ndarray:
    """semantics.gemm of int8 tiles (int32, wrapping): the product in float32 (exact up to
    F32_EXACT_DEPTH terms, half the bytes of the reference's float64), the accumulator added
    in int32, which wraps as the reference's int64 sum cast to int32 does."""
    if a.dtype != np.int8 or w.dtype != np.int8 or a.shape[-1] > F32_EXACT_DEPTH:
        return semantics.gemm(a, w, acc)
    out = (a.astype(np.float32) @ w.astype(np.float32)).astype(np.int32)
    if acc is not None:
        out += acc.astype(np.int32, copy=False)
    return out
