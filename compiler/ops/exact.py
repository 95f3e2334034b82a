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

import numpy as np


def bits(k: int) -> tuple:
    """(bits of A, bits of B) for dot products of k terms: k * 2**(ba + bb) <= 2**53."""
    total = 53 - max(k - 1, 1).bit_length()
    return (total + 1) // 2, total // 2


def integers(x: np.ndarray, nbits: int, axis=None) -> tuple:
    """(q, s): float64 integers q = rint(x * 2**-s), |q| <= 2**nbits, so x ~ q * 2**s with the
    exponent s per tensor (axis None) or per slice along the reduced `axis` (keepdims). A
    tensor holding inf or nan is kept as it is (s = 0): its products are not finite anyway."""
    x = np.asarray(x, np.float64)
    if not x.size:
        return x, 0
    peak = np.max(np.abs(x), axis=axis, keepdims=axis is not None)
    if not np.all(np.isfinite(peak)):
        return x, np.zeros_like(peak, np.int64)
    s = np.frexp(peak)[1] - nbits  # peak = m * 2**e, 0.5 <= m < 1: |x| < 2**(s + nbits)
    return np.rint(np.ldexp(x, -s)), s


def rounded(acc: np.ndarray, scale) -> np.ndarray:
    """The exact float64 sums acc times 2**scale, rounded once to float32."""
    return np.ldexp(acc, scale).astype(np.float32)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.matmul(a, b) (batch axes broadcast) as float32 with exact dot products: the same
    bits on every machine and BLAS build. a (..., m, k) or (k,), b (..., k, n) or (k,)."""
    a, b = np.asarray(a), np.asarray(b)
    ba, bb = bits(a.shape[-1])
    qa, sa = integers(a, ba)
    # B's scale per output column: along its k axis (the only one for a vector)
    qb, sb = integers(b, bb, axis=-2 if b.ndim > 1 else None)
    if b.ndim > 1 and a.ndim == 1 and np.ndim(sb):  # a vector: the result has no m axis
        sb = np.squeeze(sb, axis=-2)
    return rounded(np.matmul(qa, qb), sa + sb)  # exact: integers below 2**53, any order


def exp(x: np.ndarray) -> np.ndarray:
    """exp in float64, rounded to float32 (numpy's float32 exp has CPU-specific SIMD kernels)."""
    return np.exp(np.asarray(x, np.float64)).astype(np.float32)
