"""Host-independent float products for the float reference (calibration's forward pass).

BLAS picks its kernel by CPU (OpenBLAS's DYNAMIC_ARCH: Haswell, SkylakeX, Zen, ...), and each
kernel sums a dot product in its own order, so a float32 matmul's last bits -- hence the
calibration ranges, the quantization scales and every constant of a program -- differed from
one machine to another. Here each product is exact instead: the operands are rounded to
integers times a power of two (A per tensor, B per output column) with few enough bits that
every partial sum of a float64 dot product is an integer below 2**53, so the BLAS's dgemm
computes the exact sum in whatever order its kernel chooses; the exact result is then rounded
once to float32. The rounding keeps ba + bb = 53 - ceil(log2 K) bits (20 + 20 for K <= 8192)
relative to the operand's largest magnitude: an error below 2**-20 of it, less than float32
sgemm's own sums of K terms already made.

Elementwise +, -, *, /, sqrt, max are IEEE-exact (the same bits on every machine); the
transcendentals (exp, tanh, erf) are evaluated in float64 and rounded to float32, which
agrees between libraries except where a float64 result lies within an ulp of a float32
rounding boundary (about 2**-29 of the values)."""

from __future__ import annotations

import contextlib
import threading

import numpy as np


def bits(k: int) -> tuple:
    """(bits of A, bits of B) for dot products of k terms: k * 2**(ba + bb) <= 2**53."""
    total = 53 - max(k - 1, 1).bit_length()
    return (total + 1) // 2, total // 2


def integers(x: np.ndarray, nbits: int, axis=None) -> tuple:
    """(q, s): integers q = rint(x * 2**-s), |q| <= 2**nbits, so x ~ q * 2**s with the exponent
    s per tensor (axis None) or per slice along the reduced `axis` (keepdims). q keeps x's
    float type (float16 as float32): scaling by a power of two and rint are exact there. A
    tensor holding inf or nan is kept as it is (s = 0): its products are not finite anyway."""
    x = np.asarray(x)
    if x.dtype != np.float64:
        x = x.astype(np.float32, copy=False)
    if not x.size:
        return x, 0
    keep = axis is not None
    # max|x| as max(max x, -min x): two reductions, no |x| copy
    peak = np.maximum(x.max(axis=axis, keepdims=keep), -x.min(axis=axis, keepdims=keep))
    if not np.all(np.isfinite(peak)):
        return x, np.zeros(np.shape(peak), np.int64)
    s = np.frexp(peak)[1].astype(np.int64) - nbits  # peak = m * 2**e, 0.5 <= m < 1
    q = _times_pow2(x, -s)
    return np.rint(q, out=q), s


def _times_pow2(x: np.ndarray, e) -> np.ndarray:
    """x * 2**e, exact: a multiply by the power of two where it is a normal number of x's
    type (8-30x faster than ldexp), else ldexp in float64 (a tensor of extreme magnitude)."""
    factor = np.ldexp(np.ones(np.shape(e), x.dtype), e)
    if np.all((factor >= np.finfo(x.dtype).tiny) & np.isfinite(factor)):
        return x * factor
    return np.ldexp(x.astype(np.float64), e)


_MEMO: dict = {}
_MEMO_USERS = [0]
_MEMO_LOCK = threading.Lock()


@contextlib.contextmanager
def constants_memo():
    """Within the block, each constant operand (a weight) is rounded once, not once per
    calibration sample; entries hold their array, so an id is never reused while they live."""
    with _MEMO_LOCK:
        _MEMO_USERS[0] += 1
    try:
        yield
    finally:
        with _MEMO_LOCK:
            _MEMO_USERS[0] -= 1
            if not _MEMO_USERS[0]:
                _MEMO.clear()


def constant(w: np.ndarray, tag, fn):
    """fn(w), memoized per (w, tag) inside constants_memo (computed each call outside it): a
    value derived from a constant operand (a weight), once per calibration, not per sample.
    The calibration's sample threads reach each weight together: the first computes it and
    the others wait for it (a lock per entry), rather than each computing its own."""
    if not _MEMO_USERS[0]:
        return fn(w)
    key = (id(w), tag)
    with _MEMO_LOCK:
        entry = _MEMO.get(key)
        if entry is None or entry[0] is not w:
            entry = _MEMO[key] = [w, threading.Lock(), None]
    with entry[1]:
        if entry[2] is None:
            entry[2] = (fn(w),)  # (a failed fn leaves it None: the next caller retries)
    return entry[2][0]


def constant_integers(w: np.ndarray, nbits: int, axis) -> tuple:
    """integers(w, nbits, axis) as float64 (dgemm's operand), memoized inside constants_memo."""
    def rounded64(w):
        q, s = integers(w, nbits, axis)
        return q.astype(np.float64, copy=False), s
    return constant(w, ("integers", nbits, axis), rounded64)


def rounded(acc: np.ndarray, scale) -> np.ndarray:
    """The exact float64 sums acc times 2**scale, rounded once to float32."""
    return _times_pow2(acc, scale).astype(np.float32)


def matmul(a: np.ndarray, b: np.ndarray, b_constant: bool = False) -> np.ndarray:
    """np.matmul(a, b) (batch axes broadcast) as float32 with exact dot products: the same
    bits on every machine and BLAS build. a (..., m, k) or (k,), b (..., k, n) or (k,);
    b_constant: b is a weight (rounded once per calibration: constants_memo)."""
    a, b = np.asarray(a), np.asarray(b)
    ba, bb = bits(a.shape[-1])
    qa, sa = integers(a, ba)
    # B's scale per output column: along its k axis (the only one for a vector)
    qb, sb = (constant_integers if b_constant else integers)(
        b, bb, axis=-2 if b.ndim > 1 else None)
    if b.ndim > 1 and a.ndim == 1 and np.ndim(sb):  # a vector: the result has no m axis
        sb = np.squeeze(sb, axis=-2)
    return rounded(np.matmul(qa.astype(np.float64, copy=False), qb.astype(np.float64, copy=False)),
                   sa + sb)  # exact: integers below 2**53, any order


def exp(x: np.ndarray) -> np.ndarray:
    """exp in float64, rounded to float32 (numpy's float32 exp has CPU-specific SIMD kernels)."""
    return np.exp(np.asarray(x, np.float64)).astype(np.float32)
