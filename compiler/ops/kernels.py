"""Float32 numpy kernels of the windowed ops (conv, pooling) on NHWC tensors, the same bits on
every machine (convolutions through compiler.ops.exact)."""

from __future__ import annotations

import numpy as np

from isa.semantics import conv_out_size

from . import exact, winograd


def windows(x: np.ndarray, kernel, strides, pads, dilations, fill=0.0) -> np.ndarray:
    """(n, oh, ow, c, kh, kw) view of the sliding windows of NHWC `x` padded with `fill`."""
    kh, kw = kernel
    (sh, sw), (dh, dw) = strides, dilations
    top, left, bottom, right = pads
    n, h, w, c = x.shape
    oh = conv_out_size(h, kh, sh, top, bottom, dh)
    ow = conv_out_size(w, kw, sw, left, right, dw)
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)
    view = np.lib.stride_tricks.sliding_window_view(
        xp, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(1, 2))
    return view[:, ::sh, ::sw][:, :oh, :ow, :, ::dh, ::dw]


def conv2d_nhwc(x: np.ndarray, w: np.ndarray, strides, pads, dilations, groups) -> np.ndarray:
    """NHWC input, HWIO weights (kh, kw, cin/groups, cout) -> NHWC float32, every dot product
    exact and rounded once (compiler.ops.exact: the same bits whatever the BLAS kernel)."""
    kh, kw, cin_g, cout = w.shape
    if groups == 1:
        return _conv_matmul(x, w, strides, pads, dilations)
    og = cout // groups
    v = windows(x.astype(np.float64), (kh, kw), strides, pads, dilations)
    n, oh, ow = v.shape[:3]
    v = v.reshape(n, oh, ow, groups, cin_g, kh, kw)
    wg = w.astype(np.float64).reshape(kh, kw, cin_g, groups, og)
    if cin_g == 1:
        # depthwise: float64 products of float32 values are exact and the taps add in a
        # fixed order, so the sum is the same on every machine
        acc = np.zeros((n, oh, ow, groups, og))
        for i in range(kh):
            for j in range(kw):
                acc += v[:, :, :, :, 0, i, j, None] * wg[i, j, 0]
        return acc.reshape(n, oh, ow, cout).astype(np.float32)
    # grouped: one exact matmul per group, (pixels, cin_g * kh * kw) x (cin_g * kh * kw, og)
    patches = v.transpose(3, 0, 1, 2, 4, 5, 6).reshape(groups, n * oh * ow, cin_g * kh * kw)
    wmat = wg.transpose(3, 2, 0, 1, 4).reshape(groups, cin_g * kh * kw, og)
    out = exact.matmul(patches, wmat)  # (groups, pixels, og)
    return out.reshape(groups, n, oh, ow, og).transpose(1, 2, 3, 0, 4).reshape(n, oh, ow, cout)


# a 3x3 stride-1 conv takes Winograd's form (2.25x fewer multiplies, the same bits) from
# this many output pixels: ResNet-18's 7x7 layers (49) read the 16/9 as large transformed
# weights for too few tiles (measured slower in calibration); its 14x14 ones (196) gain
WINOGRAD_PIXELS = 100


def _conv_matmul(x: np.ndarray, w: np.ndarray, strides, pads, dilations) -> np.ndarray:
    """The dense conv as one matmul W^T (cout, kh*kw*cin) x patches (kh*kw*cin, n*oh*ow), in
    exact integers (compiler.ops.exact): x rounded per tensor and W per output channel
    before the patch matrix is built, so the copies move the rounded values once."""
    kh, kw, cin, cout = w.shape
    (sh, sw), (dh, dw) = strides, dilations
    top, left, bottom, right = pads
    n, h, wd, c = x.shape
    oh = conv_out_size(h, kh, sh, top, bottom, dh)
    ow = conv_out_size(wd, kw, sw, left, right, dw)
    bx, bw = exact.bits(kh * kw * cin)
    qx, sx = exact.integers(x, bx)
    qw, ws = exact.constant_integers(w, bw, (0, 1, 2))  # (1, 1, 1, cout)
    if (kh, kw, sh, sw, dh, dw) == (3, 3, 1, 1, 1, 1) and n * oh * ow >= WINOGRAD_PIXELS:
        acc = winograd.conv(qx, bx, qw, pads)  # 4 x the same exact sums, or None
        if acc is not None:
            out = exact.rounded(acc, sx - 2 + np.reshape(ws, (cout, 1, 1, 1)))
            return out.reshape(cout, n * oh * ow).T.reshape(n, oh, ow, cout)  # as below
    if kh == kw == 1 and not any(pads):
        # the patch matrix is x itself (every stride-th pixel), channels first: one copy
        # (a conv's output is channel major already, and the ops after it keep its order)
        patches = np.ascontiguousarray(qx[:, ::sh, ::sw].transpose(3, 0, 1, 2),
                                       dtype=np.float64)
    else:
        # channels first once (CNHW), so each tap's copy below moves whole rows
        xp = np.zeros((c, n, h + top + bottom, wd + left + right))
        xp[:, :, top:top + h, left:left + wd] = qx.transpose(3, 0, 1, 2)
        patches = np.empty((kh, kw, c, n, oh, ow))
        for i in range(kh):
            for j in range(kw):
                patches[i, j] = xp[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                                   j * dw:j * dw + (ow - 1) * sw + 1:sw]
    # exact: integers below 2**53, so any summation order gives the same sums
    acc = qw.reshape(kh * kw * cin, cout).T @ patches.reshape(kh * kw * c, n * oh * ow)
    return exact.rounded(acc, sx + np.reshape(ws, (cout, 1))).T.reshape(n, oh, ow, cout)


def max_pool_nhwc(x: np.ndarray, kernel, strides, pads) -> np.ndarray:
    # one np.maximum per tap over whole strided planes: the same values (max is exact and
    # order-free, nan propagates alike) and layout as v.max(axis=(4, 5)), ~5x faster
    v = windows(x, kernel, strides, pads, (1, 1), fill=-np.inf)
    out = np.empty(v.shape[:4], v.dtype)
    np.copyto(out, v[..., 0, 0])
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            if i or j:
                np.maximum(out, v[..., i, j], out=out)
    return out.astype(x.dtype, copy=False)


def avg_pool_nhwc(x: np.ndarray, kernel, strides, pads, count_include_pad: bool) -> np.ndarray:
    total = windows(x.astype(np.float32), kernel, strides, pads, (1, 1)).sum(axis=(4, 5))
    if count_include_pad:
        count = np.float32(kernel[0] * kernel[1])
    else:
        ones = np.ones((1,) + x.shape[1:3] + (1,), np.float32)
        count = windows(ones, kernel, strides, pads, (1, 1)).sum(axis=(4, 5))
    return (total / count).astype(np.float32)


def to_nhwc(x: np.ndarray, layout: str) -> np.ndarray:
    return x.transpose(0, 2, 3, 1) if layout == "NCHW" else x


def from_nhwc(x: np.ndarray, layout: str) -> np.ndarray:
    return x.transpose(0, 3, 1, 2) if layout == "NCHW" else x
