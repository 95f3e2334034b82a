"""Exact Winograd F(2x2, 3x3) for the float reference's dense 3x3 stride-1 convs.

The float reference's conv is an exact integer sum (compiler.ops.exact): x rounded to integers
per tensor, W per output channel, every partial sum an integer below 2**53, rounded once to
float32. Winograd's minimal filtering gets the same integer sums with 16 products per 2x2
output tile instead of 36 (2.25x fewer multiplies in the matmul that dominates calibration),
and, since every step is integer arithmetic, gives the same bits once each intermediate value
is an integer below 2**53 in magnitude:

    Y' = A^T [ (G' g G'^T) . (B^T d B) ] A = 4 Y   (G' = 2 G: integer transforms)

    B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]
    G'  = [[2, 0, 0], [1, 1, 1], [1, -1, 1], [0, 0, 2]]
    A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]

The transforms add bits (|V| <= 4 max|d|, |U'| <= 9 max|g|, and A^T sums 9 of the M = U' V
products' channel sums), so unlike the direct form's a-priori bound, exactness is checked on
the data: |M(p, t, k)| <= sum_c max_k|U'(p, c, k)| |V(p, c, t)| (a matrix-vector product per
position p: 1/K of the matmul's work), and every partial sum of an output's transform is
below the sum of its nine positions' bounds. When any output tile's sum reaches 2**53 (a
tensor whose values all sit near its peak, or inf/nan) the caller takes the direct form:
the bits are the same either way. The sums of the bounds are of non-negative integers, so
they are exact below 2**53 and at least 2**53 above it (monotone rounding): the check is
rigorous in float64. On ResNet-18/50's activations the bounds stay 1.3-3.6 bits below 2**53.

The output's layout follows the direct form (compiler.ops.kernels._conv_matmul): (cout, n,
oh, ow) in memory, an NHWC-shaped view of it handed on, so every later op (and its
reductions' summation order) sees the same array as before."""

from __future__ import annotations

import numpy as np

from . import exact

LIMIT = float(2 ** 53)


# G' (x) G': U'(p = 4 i + j) = sum over taps (a, b) of G'[i, a] G'[j, b] g[a, b]
_G = np.array([[2, 0, 0], [1, 1, 1], [1, -1, 1], [0, 0, 2]], np.float64)
_GG = np.einsum("ia,jb->ijab", _G, _G).reshape(16, 9)


def weights(qw: np.ndarray) -> tuple:
    """(U'^T, bound): U' (16, cin, cout) = G' g G'^T of the integer HWIO weights qw (3, 3,
    cin, cout) by one matmul (exact: integers far below 2**53), position p = 4 i + j, handed
    back transposed (16, cout, cin) for U'^T V; bound (16, 1, cin) = max over cout of |U'|,
    for the exactness check."""
    kh, kw, cin, cout = qw.shape
    u = (_GG @ qw.reshape(9, cin * cout)).reshape(16, cin, cout)
    bound = np.maximum(u.max(axis=2), -u.min(axis=2))[:, None, :]
    return u.transpose(0, 2, 1), bound


def conv3x3(qx: np.ndarray, xbits: int, u: np.ndarray, bound: np.ndarray,
            pads) -> np.ndarray | None:
    """4 x the exact sums of the 3x3 stride-1 conv of integer NHWC qx (float32 or float64
    integers, |qx| <= 2**xbits: exact.integers) with the weights transformed by weights(), as
    float64 (cout, n, oh, ow); None when the data-dependent bound does not prove every step
    exact (take the direct form)."""
    n, h, w, c = qx.shape
    top, left, bottom, right = pads
    oh, ow = h + top + bottom - 2, w + left + right - 2
    th, tw = (oh + 1) // 2, (ow + 1) // 2
    # channels last, so each tile slice moves whole channel vectors; rows/columns past the
    # padding are 0. float32 where |V| <= 4 max|q| stays within its 2**24 exact integers
    hp, wp = 2 * th + 2, 2 * tw + 2
    xp = np.zeros((n, hp, wp, c), np.float32 if xbits + 2 <= 24 else np.float64)
    rows, cols = min(h, hp - top), min(w, wp - left)
    xp[:, top:top + rows, left:left + cols] = qx[:, :rows, :cols]
    # V = B^T d B for every 4x4 input tile (stride 2), (4, 4, n, th, tw, c) in float64
    r = [xp[:, i::2][:, :th] for i in range(4)]
    v = np.empty((4, 4, n, th, tw, c))
    for i, d in enumerate((r[0] - r[2], r[1] + r[2], r[2] - r[1], r[1] - r[3])):
        s = [d[:, :, j::2][:, :, :tw] for j in range(4)]
        np.subtract(s[0], s[2], out=v[i, 0])
        np.add(s[1], s[2], out=v[i, 1])
        np.subtract(s[2], s[1], out=v[i, 2])
        np.subtract(s[1], s[3], out=v[i, 3])
    v = v.reshape(16, n * th * tw, c).transpose(0, 2, 1)  # (p, c, tiles): BLAS reads it so
    if not _exact(np.matmul(bound, np.abs(v)).reshape(4, 4, -1)):
        return None
    m = np.matmul(u, v).reshape(4, 4, -1, n, th, tw)  # (p, cout, tiles): exact, any order
    y = np.empty((m.shape[2], n, th, 2, tw, 2))
    for i, a in enumerate((m[0] + m[1] + m[2], m[1] - m[2] - m[3])):
        y[:, :, :, i, :, 0] = a[0] + a[1] + a[2]
        y[:, :, :, i, :, 1] = a[1] - a[2] - a[3]
    return y.reshape(-1, n, 2 * th, 2 * tw)[:, :, :oh, :ow]


def _exact(b: np.ndarray) -> bool:
    """Whether every output of every tile has its nine positions' bounds b (4, 4, tiles)
    summing below 2**53 (an output (i, j) of a tile reads rows i..i+2, columns j..j+2)."""
    rows = (b[0] + b[1] + b[2], b[1] + b[2] + b[3])
    worst = max(float((r[0] + r[1] + r[2]).max()) for r in rows)
    worst = max(worst, max(float((r[1] + r[2] + r[3]).max()) for r in rows))
    return worst < LIMIT


def conv(qx: np.ndarray, xbits: int, qw_const: np.ndarray, pads) -> np.ndarray | None:
    """conv3x3 with qw_const's transform memoized (a weight of the calibration: exact's
    constants_memo), None where the check fails."""
    u, bound = exact.constant(qw_const, "winograd", weights)
    return conv3x3(qx, xbits, u, bound, pads)
