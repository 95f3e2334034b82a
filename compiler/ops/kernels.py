"""Float32 numpy kernels of the windowed ops (conv, pooling) on NHWC tensors."""

from __future__ import annotations

import numpy as np

from isa.semantics import conv_out_size


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
    """NHWC input, HWIO weights (kh, kw, cin/groups, cout) -> NHWC float32."""
    kh, kw, cin_g, cout = w.shape
    v = windows(x.astype(np.float32), (kh, kw), strides, pads, dilations)
    n, oh, ow = v.shape[:3]
    v = v.reshape(n, oh, ow, groups, cin_g, kh, kw)
    wg = w.astype(np.float32).reshape(kh, kw, cin_g, groups, cout // groups)
    out = np.einsum("nhwgikl,kligo->nhwgo", v, wg, optimize=True)
    return out.reshape(n, oh, ow, cout).astype(np.float32)


def max_pool_nhwc(x: np.ndarray, kernel, strides, pads) -> np.ndarray:
    v = windows(x, kernel, strides, pads, (1, 1), fill=-np.inf)
    return v.max(axis=(4, 5)).astype(x.dtype)


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
