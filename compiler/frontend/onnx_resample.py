"""ONNX Pad modes beyond zero (a constant value, reflect, edge), linear and cubic Resize in every
coordinate mode, and dilated MaxPool, each rewritten at import into ops the NPU runs (slices,
concats, depthwise and dense layers, undilated pools, depth_to_space); used by the handlers in
onnx_ops_spatial and onnx_ops."""

from __future__ import annotations

import numpy as np

from .onnx_import import _Importer


# ------------------------------------------------------------------------------ Pad
def pad_value(im: _Importer, x: str, begin: list, end: list, value: float) -> str:
    """Constant padding by `value`: (x - value) padded with zeros, plus value: two per-channel
    biases around the zero-padding depthwise identity conv (the first becomes a depthwise 1x1
    conv, the second the pad conv's bias), exact in float up to the two roundings."""
    c = im.type_of(x).shape[1]
    shifted = im.emit("nn.bias_add", [x, im.constant(np.full(c, -value, np.float32),
                                                     "pad_shift")], im.tmp("shift"), axis=1)
    ones = im.constant(np.ones((c, 1, 1, 1), np.float32), "pad_identity")
    padded = im.emit("nn.conv2d", [shifted, ones], im.tmp("padded"), groups=c,
                     pads=(begin[2], begin[3], end[2], end[3]))
    return im.emit("nn.bias_add", [padded, im.constant(np.full(c, value, np.float32),
                                                       "pad_value")], axis=1)


def pad_copy(im: _Importer, x: str, begin: list, end: list, mode: str) -> str:
    """reflect / edge padding of H and W: per axis, one-pixel slices of the rows or columns
    the mode repeats, concatenated around the input (DMA copies only, exact)."""
    cur = x
    axes = [a for a in (2, 3) if begin[a] or end[a]]
    for k, axis in enumerate(axes):
        size = im.type_of(cur).shape[axis]
        b, e = begin[axis], end[axis]
        if mode == "reflect":
            if max(b, e) >= size:
                im.fail(f"reflect padding by {max(b, e)} of an axis of {size}: the pad must be "
                        "smaller than the axis (ONNX's rule)")
            left, right = list(range(b, 0, -1)), list(range(size - 2, size - 2 - e, -1))
        else:
            left, right = [0] * b, [size - 1] * e
        if len(left) + len(right) + 1 > 64:
            im.fail(f"padding by {b} + {e} copies more than 63 slices along axis {axis}")
        piece = {}
        for i in set(left + right):
            piece[i] = im.emit("slice", [cur], im.tmp(f"edge{axis}_{i}"), axis=axis, start=i,
                               end=i + 1)
        parts = [piece[i] for i in left] + [cur] + [piece[i] for i in right]
        last = k == len(axes) - 1
        cur = im.emit("concat", parts, None if last else im.tmp(f"pad{axis}"), axis=axis)
    return cur


# ------------------------------------------------------------------------------ Resize
def source_coord(mode: str, out: int, size: int, scale: float) -> np.ndarray:
    """The input coordinate of every output index (ONNX Resize's coordinate_transformation_mode)."""
    o = np.arange(out, dtype=np.float64)
    if mode == "half_pixel":
        return (o + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (o + 0.5) / scale - 0.5 if out > 1 else 0 * o
    if mode == "align_corners":
        return o * (size - 1) / (out - 1) if out > 1 else 0 * o
    if mode == "asymmetric":
        return o / scale
    if mode == "tf_half_pixel_for_nn":
        return (o + 0.5) / scale
    if mode == "half_pixel_symmetric":
        adjustment = out / (scale * size)
        return size / 2 * (1 - adjustment) + (o + 0.5) / scale - 0.5
    raise ValueError(mode)


COORD_MODES = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
               "tf_half_pixel_for_nn", "half_pixel_symmetric")


def _cubic(t: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution weights of the 4 neighbours at offsets -1, 0, 1, 2."""
    d = np.stack([1 + t, t, 1 - t, 2 - t], axis=-1)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, far)


def resize_matrix(mode: str, coord: str, out: int, size: int, scale: float,
                  cubic_a: float = -0.75, exclude_outside: bool = False) -> np.ndarray:
    """(out, size) matrix of one axis' linear or cubic interpolation, neighbours outside the
    axis clamped to its border (or dropped and the rest renormalised: exclude_outside)."""
    x = source_coord(coord, out, size, scale)
    x0 = np.floor(x)
    t = x - x0
    if mode == "linear":
        offs, w = np.array([0, 1]), np.stack([1 - t, t], axis=-1)
    else:
        offs, w = np.array([-1, 0, 1, 2]), _cubic(t, cubic_a)
    idx = x0[:, None].astype(np.int64) + offs
    if exclude_outside:
        w = np.where((idx >= 0) & (idx < size), w, 0.0)
        w = w / w.sum(axis=1, keepdims=True)
    m = np.zeros((out, size))
    np.add.at(m, (np.repeat(np.arange(out), len(offs)), np.clip(idx, 0, size - 1).ravel()),
              w.ravel())
    return m


def resize_separable(im: _Importer, x: str, out_hw: tuple, scales: tuple, mode: str,
                     coord: str) -> str:
    """Linear/cubic Resize of H and W as two dense layers over the last axis (x @ A^T), with
    a transpose between them: exact interpolation matrices, NPU matrix work."""
    if coord == "tf_crop_and_resize":
        im.fail("coordinate_transformation_mode 'tf_crop_and_resize' (a region of interest) "
                "is not supported")
    if coord not in COORD_MODES:
        im.fail(f"coordinate_transformation_mode '{coord}' is not one of {COORD_MODES}")
    if int(im.attr("antialias", 0) or 0):
        im.fail("antialiased Resize (opset 18's antialias=1) is not supported")
    a = float(im.attr("cubic_coeff_a", -0.75))
    excl = bool(im.attr("exclude_outside", 0))
    n, c, h, w = im.type_of(x).shape
    mats = [resize_matrix(mode, coord, o, s, sc, a, excl)
            for o, s, sc in zip(out_hw, (h, w), scales)]
    cur, (oh, ow) = x, out_hw
    # W first (the last axis), then H through a transpose; the result back to N, C, H, W
    for k, (m, rows) in enumerate(((mats[1], n * c * h), (mats[0], n * c * ow))):
        last = k == 1
        size, out = m.shape[1], m.shape[0]
        flat = im.emit("reshape", [cur], im.tmp(f"rows{k}"), shape=(rows, size))
        dense = im.emit("nn.dense", [flat, im.constant(np.ascontiguousarray(m.T, np.float32),
                                                       f"resize_{mode}")], im.tmp(f"interp{k}"))
        shape = (n, c, h, out) if k == 0 else (n, c, ow, out)
        back = im.emit("reshape", [dense], im.tmp(f"img{k}"), shape=shape)
        cur = im.emit("transpose", [back], None if last else im.tmp(f"t{k}"), axes=(0, 1, 3, 2))
    return cur


# ------------------------------------------------------------------------------ MaxPool
def dilated_maxpool(im: _Importer, x: str, kernel: tuple, attrs: dict, dil: tuple) -> str:
    """Max pooling with dilation (dh, dw): the input's dh x dw phases (rows i = r mod dh,
    columns likewise; a space-to-depth by reshape and transpose) each pooled by the
    undilated kernel, with that phase's share of the padding as its own pads (so padding
    never wins). Strides that are multiples of the dilation read one phase only, pooled at
    stride s / d; otherwise every phase is pooled at stride 1, interleaved back (channel
    concat, depth_to_space) and subsampled by a 1x1 pool. H and W must be multiples of the
    dilation (and the stride-1 output too, when every phase is pooled)."""
    n, c, h, w = im.type_of(x).shape
    (dh, dw), (sh, sw) = dil, tuple(attrs["strides"])
    top, left, bottom, right = attrs["pads"]
    span = (dh * (kernel[0] - 1) + 1, dw * (kernel[1] - 1) + 1)
    out = ((h + top + bottom - span[0]) // sh + 1, (w + left + right - span[1]) // sw + 1)
    one = sh % dh == 0 and sw % dw == 0
    oh1, ow1 = h + top + bottom - span[0] + 1, w + left + right - span[1] + 1  # stride 1
    if h % dh or w % dw or min(oh1, ow1) < 1 or \
            (not one and (oh1 % dh or ow1 % dw or dh * dw > 64)):
        im.fail(f"dilated max pooling of a {h}x{w} map (kernel {tuple(kernel)}, dilation "
                f"{dh}x{dw}, strides {sh}x{sw}, pads {tuple(attrs['pads'])}): the map (and, "
                f"unless the strides are multiples of the dilation, its stride-1 output "
                f"{oh1}x{ow1}) must be multiples of the dilation, at most 64 phases")
    v = im.emit("reshape", [x], im.tmp("phases6"), shape=(n, c, h // dh, dh, w // dw, dw))
    v = im.emit("transpose", [v], im.tmp("phasesT"), axes=(0, 3, 5, 1, 2, 4))
    v = im.emit("reshape", [v], im.tmp("phases"), shape=(n, dh * dw * c, h // dh, w // dw))

    def pool(ry, rx, stride, counts, output):
        """Phase (ry, rx) pooled: output q reads phase rows q * stride - (r + pad) // d + t."""
        k = ry * dw + rx
        ph = im.emit("slice", [v], im.tmp(f"phase{ry}{rx}"), axis=1, start=k * c,
                     end=(k + 1) * c)
        pt, pl = (ry + top) // dh, (rx + left) // dw
        pb = max(0, (counts[0] - 1) * stride[0] + kernel[0] - h // dh - pt)
        pr = max(0, (counts[1] - 1) * stride[1] + kernel[1] - w // dw - pl)
        name = im.tmp(f"pool{ry}{rx}") if output == "" else None  # None: the node's output
        return im.emit("nn.max_pool2d", [ph], name, kernel=tuple(kernel), strides=stride,
                       pads=(pt, pl, pb, pr))

    if one:  # outputs o * s - pad all fall in phase (-pad) mod d
        return pool((-top) % dh, (-left) % dw, (sh // dh, sw // dw), out, None)
    # output o = q' d + r' reads phase r = (r' - pad) mod d (r' = (r + pad) mod d)
    pooled = {((ry + top) % dh, (rx + left) % dw): pool(ry, rx, (1, 1),
                                                        (oh1 // dh, ow1 // dw), "")
              for ry in range(dh) for rx in range(dw)}
    cat = im.emit("concat", [pooled[(a, b)] for a in range(dh) for b in range(dw)],
                  im.tmp("pooled"), axis=1)
    strided = (sh, sw) != (1, 1)
    full = im.emit("depth_to_space", [cat], im.tmp("full") if strided else None, block=dh,
                   block_w=dw, mode="DCR")
    if not strided:
        return full
    return im.emit("nn.max_pool2d", [full], kernel=(1, 1), strides=(sh, sw), pads=(0, 0, 0, 0))
