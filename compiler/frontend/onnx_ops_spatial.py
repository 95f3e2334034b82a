"""ONNX spatial handlers: Pad (attribute before opset 11, inputs from 11) and nearest
Resize/Upsample by integer factors (see onnx_import)."""

from __future__ import annotations

import numpy as np

from .onnx_import import _Importer, handler
from .onnx_resample import pad_copy, pad_value, resize_separable


@handler("Pad",
         note="H, W: zero padding a depthwise identity conv; a constant value the same around "
         "a per-channel shift; reflect and edge as one-pixel slices and a concat; pads "
         "attribute before 11, inputs from 11, axes (18)")
def _pad(im: _Importer):
    """Zero padding of H and W: a depthwise 1x1 conv of weight 1 with those pads (the NPU's
    conv pads with zeros as it loads), exact in float and in int8."""
    x = im.input(0)
    xt = im.type_of(x)
    mode = im.attr("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if im.opset < 11:
        pads, value = list(im.attr("paddings" if im.opset < 2 else "pads")), \
            float(im.attr("value", 0.0))
    else:
        pads = im.ints("pads", 1)
        value = float(im.const(2, "constant_value").reshape(-1)[0]) if im.input(2) else 0.0
        if im.input(3) is not None:  # opset 18: pads of the listed axes only
            axes = [int(a) % xt.rank for a in im.ints("axes", 3)]
            full = [0] * (2 * xt.rank)
            for k, a in enumerate(axes):
                full[a], full[a + xt.rank] = pads[k], pads[k + len(axes)]
            pads = full
    if mode not in ("constant", "reflect", "edge"):
        im.fail(f"Pad mode '{mode}': constant, reflect and edge padding are supported")
    rank = xt.rank
    begin, end = pads[:rank], pads[rank:]
    if rank != 4 or any(begin[:2]) or any(end[:2]) or min(pads) < 0:
        im.fail(f"pads {list(pads)} of {xt}: only non-negative padding of H and W of a 4-D "
                "tensor is supported")
    if not any(pads):
        return im.emit("identity", [x])
    if mode != "constant":
        return pad_copy(im, x, begin, end, mode)
    if value != 0.0:
        return pad_value(im, x, begin, end, value)
    c = xt.shape[1]
    ones = im.constant(np.ones((c, 1, 1, 1), np.float32), "pad_identity")
    im.emit("nn.conv2d", [x, ones], groups=c, pads=(begin[2], begin[3], end[2], end[3]))


def _nearest_index(mode: str, nearest: str, out: int, size: int, scale: float) -> np.ndarray:
    """The source index of every output index, as onnxruntime computes it."""
    o = np.arange(out, dtype=np.float64)
    x = {"half_pixel": (o + 0.5) / scale - 0.5,
         "pytorch_half_pixel": (o + 0.5) / scale - 0.5 if out > 1 else 0 * o,
         "asymmetric": o / scale,
         "tf_half_pixel_for_nn": (o + 0.5) / scale,
         "align_corners": o * (size - 1) / max(out - 1, 1)}[mode]
    idx = {"round_prefer_floor": np.ceil(x - 0.5), "round_prefer_ceil": np.floor(x + 0.5),
           "floor": np.floor(x), "ceil": np.ceil(x)}[nearest]
    return np.clip(idx, 0, size - 1).astype(np.int64)


def _upsample(im: _Importer, scales, sizes, mode: str, coord: str, nearest: str):
    x = im.input(0)
    shape = im.type_of(x).shape
    if len(shape) != 4:
        im.fail(f"only 4-D NCHW inputs are resized, got {list(shape)}")
    if sizes is not None:
        out = [int(s) for s in sizes]
        scales = [o / i for o, i in zip(out, shape)]
    else:
        out = [int(np.floor(d * s)) for d, s in zip(shape, scales)]
    if out[:2] != list(shape[:2]):
        im.fail(f"resizing the batch or channel axes ({list(shape)} -> {out}) is not supported")
    factors = [o // i for o, i in zip(out[2:], shape[2:])]
    if mode in ("linear", "cubic") and not (
            mode == "linear" and [o % i for o, i in zip(out[2:], shape[2:])] == [0, 0]
            and tuple(factors) == (2, 2) and coord in ("half_pixel", "pytorch_half_pixel")
            and min(shape[2:]) >= 2):
        return resize_separable(im, x, tuple(out[2:]), tuple(scales[2:]), mode, coord)
    if any(o % i for o, i in zip(out[2:], shape[2:])):
        im.fail(f"{list(shape)} -> {out}: only integer upsampling factors are supported")
    if mode == "linear":
        return _bilinear2x(im, x, factors, coord)
    if mode != "nearest":
        im.fail(f"mode '{mode}' has no NPU lowering here (nearest upsampling by integer "
                "factors, bilinear by 2 with half-pixel centres)")
    for axis, f in zip((2, 3), factors):
        idx = _nearest_index(coord, nearest, out[axis], shape[axis], scales[axis])
        if not np.array_equal(idx, np.arange(out[axis]) // f):
            im.fail(f"coordinate_transformation_mode '{coord}' with nearest_mode '{nearest}' "
                    f"does not repeat each pixel {f} times along axis {axis}; not supported")
    im.emit("upsample_nearest", [x], scales=tuple(factors))


# 1-D bilinear upsampling by 2 with half-pixel centres, after nearest upsampling by 2 with one
# repeated border pixel: out[m] = (u[m] + 2 u[m + 1] + u[m + 2]) / 4 (out[2i] = x[i-1]/4 +
# 3 x[i]/4 and out[2i+1] = 3 x[i]/4 + x[i+1]/4, the borders clamped as onnxruntime does)
_BILINEAR_TAPS = np.array([0.25, 0.5, 0.25], np.float32)


def _bilinear2x(im: _Importer, x: str, factors, coord: str):
    """Bilinear 2x (PyTorch's align_corners=False): a nearest 2x with a repeated border, then
    a fixed depthwise 3x3 conv, both NPU ops."""
    shape = im.type_of(x).shape
    if tuple(factors) != (2, 2) or coord not in ("half_pixel", "pytorch_half_pixel") or \
            min(shape[2:]) < 2:
        im.fail(f"linear resize by {tuple(factors)} with coordinate_transformation_mode "
                f"'{coord}': only 2x with half-pixel centres (PyTorch align_corners=False) is "
                "lowered")
    c = shape[1]
    up = im.emit("upsample_nearest", [x], im.tmp("up"), scales=(2, 2), edge=1)
    k = np.outer(_BILINEAR_TAPS, _BILINEAR_TAPS).astype(np.float32)
    w = im.constant(np.broadcast_to(k, (c, 1, 3, 3)).copy(), "bilinear")
    return im.emit("nn.conv2d", [up, w], groups=c)


def _text(v, default: str) -> str:
    v = default if v is None else v
    return v.decode() if isinstance(v, bytes) else v


@handler("Upsample",
         note="nearest, integer factors (strided DMA copy); scales attribute in 7, input from 9")
def _upsample_op(im: _Importer):
    """Upsample (opsets 7-9; scales an attribute in 7, an input from 9): floor(o / scale)."""
    scales = im.attr("scales") if im.opset < 9 else im.const(1, "scales").reshape(-1)
    _upsample(im, [float(s) for s in scales], None, _text(im.attr("mode"), "nearest"),
              "asymmetric", "floor")


@handler("Resize", note="nearest by integer factors (every coordinate mode that repeats "
         "pixels); linear by 2 with half-pixel centres (a depthwise 3x3 after a nearest 2x); "
         "other linear and cubic resizes, any scale and coordinate mode but "
         "tf_crop_and_resize: two dense layers of the exact interpolation matrices; "
         "opset 10 and 11+ inputs")
def _resize(im: _Importer):
    """Resize (opset 10: scales as input 1, asymmetric floor; from 11: roi, scales, sizes
    as inputs 1-3 and the coordinate and rounding modes as attributes)."""
    mode = _text(im.attr("mode"), "nearest")
    if im.opset < 11:
        return _upsample(im, [float(s) for s in im.const(1, "scales").reshape(-1)], None,
                         mode, "asymmetric", "floor")
    scales = im.const(2, "scales").reshape(-1) if im.input(2) is not None else None
    if scales is not None and scales.size == 0:
        scales = None
    sizes = im.const(3, "sizes").reshape(-1) if im.input(3) is not None else None
    if scales is None and sizes is None:
        im.fail("Resize needs constant scales or sizes")
    if im.attr("axes") is not None:
        im.fail("Resize with 'axes' (opset 18) is not supported")
    _upsample(im, None if scales is None else [float(s) for s in scales], sizes, mode,
              _text(im.attr("coordinate_transformation_mode"), "half_pixel"),
              _text(im.attr("nearest_mode"), "round_prefer_floor"))


@handler("DepthToSpace", note="DCR and CRD modes; a strided DMA copy")
def _depth_to_space(im: _Importer):
    mode = _text(im.attr("mode"), "DCR")
    im.emit("depth_to_space", [im.input(0)], block=int(im.attr("blocksize")), mode=mode)


def _phase_taps(k: int, s: int, pad: int, p: int) -> tuple:
    """One axis of output phase p (outputs o = s*q + p) of a transposed conv: (kernel taps,
    in order of a correlation, and its left padding). Output o reads input i through tap
    o + pad - s*i; in phase p those are taps r, r + s, ... (r = (p + pad) % s)."""
    r = (p + pad) % s
    taps = list(range(r, k, s))[::-1]          # correlation order: the last tap reads first
    d = (p + pad - r) // s                     # input index offset of tap r
    return taps, len(taps) - 1 - d


@handler("ConvTranspose", note="2-D, strides, pads, output_padding, groups: one conv per "
         "stride phase, interleaved by a depth_to_space copy")
def _conv_transpose(im: _Importer):
    """y[o] = sum x[i] w[o + pad - s*i]: for each of the s*s output phases an ordinary conv
    with the phase's taps (flipped), concatenated on channels and interleaved by
    depth_to_space; exact in float, and NPU ops all."""
    x, w = im.input(0), im.const(1, "W")
    xt = im.type_of(x)
    if w.ndim != 4 or xt.rank != 4:
        im.fail(f"only 2-D transposed convolution is supported, weights are {list(w.shape)}")
    if tuple(im.attr("dilations", [1, 1])) != (1, 1):
        im.fail("dilated ConvTranspose is not supported")
    g = int(im.attr("group", 1))
    cin, cout_g, kh, kw = w.shape
    cout = cout_g * g
    sh, sw = im.attr("strides", [1, 1])
    opad = list(im.attr("output_padding", [0, 0]))
    h, wd = xt.shape[2:]
    pads = _transpose_pads(im, (h, wd), (sh, sw), (kh, kw), opad)
    out = [(n - 1) * s + k - pb - pe + op for n, s, k, pb, pe, op in
           zip((h, wd), (sh, sw), (kh, kw), pads[:2], pads[2:], opad)]
    # every phase computes ceil(out / s) outputs; the extra ones are sliced off at the end
    qh, qw = -(-out[0] // sh), -(-out[1] // sw)
    bias = im.input(2)
    phases = []
    for ph in range(sh):
        for pw in range(sw):
            th, lh = _phase_taps(kh, sh, pads[0], ph)
            tw, lw = _phase_taps(kw, sw, pads[1], pw)
            xin, hin, win = x, h, wd
            if lh < 0 and -lh < h:  # the phase's first tap reads past the first rows: skip them
                xin = im.emit("slice", [xin], im.tmp(f"rows{ph}{pw}"), axis=2, start=-lh, end=h)
                hin, lh = h + lh, 0
            if lw < 0 and -lw < wd:
                xin = im.emit("slice", [xin], im.tmp(f"cols{ph}{pw}"), axis=3, start=-lw, end=wd)
                win, lw = wd + lw, 0
            rh, rw = qh - hin - lh + len(th) - 1, qw - win - lw + len(tw) - 1
            if not th or not tw or min(lh, lw, rh, rw) < 0:
                im.fail(f"stride phase ({ph}, {pw}) of kernel {kh}x{kw}, strides ({sh}, {sw}), "
                        f"pads {pads} has no taps or crops its input; not supported")
            # OIHW conv weights of each group: W[o, i] = w[i, o] at the phase's taps
            k = w[:, :, th][:, :, :, tw]                       # (cin, cout_g, jh, jw)
            k = k.reshape(g, cin // g, cout_g, len(th), len(tw)).transpose(0, 2, 1, 3, 4)
            k = np.ascontiguousarray(k.reshape(cout, cin // g, len(th), len(tw)))
            y = im.emit("nn.conv2d", [xin, im.constant(k.astype(np.float32), "ct_phase")],
                        im.tmp(f"phase{ph}{pw}"), groups=g, pads=(lh, lw, rh, rw))
            if bias is not None:
                y = im.emit("nn.bias_add", [y, im.materialize(bias)], im.tmp(f"bias{ph}{pw}"),
                            axis=1)
            phases.append(y)
    if (sh, sw) == (1, 1):
        return im.emit("identity", phases)
    cat = im.emit("concat", phases, im.tmp("phases"), axis=1)
    if (qh * sh, qw * sw) == tuple(out):
        return im.emit("depth_to_space", [cat], block=sh, block_w=sw, mode="DCR")
    y = im.emit("depth_to_space", [cat], im.tmp("interleaved"), block=sh, block_w=sw,
                mode="DCR")
    if qh * sh != out[0]:
        y = im.emit("slice", [y], None if qw * sw == out[1] else im.tmp("rows"), axis=2,
                    start=0, end=out[0])
    if qw * sw != out[1]:
        im.emit("slice", [y], axis=3, start=0, end=out[1])


def _transpose_pads(im: _Importer, in_hw, strides, kernel, opad) -> list:
    """ConvTranspose pads: the attribute, or derived from output_shape / auto_pad as the
    ONNX spec says (total = s*(in-1) + output_padding + k - out, split by auto_pad)."""
    auto = _text(im.attr("auto_pad"), "NOTSET")
    shape = im.attr("output_shape")
    if shape is None and auto in ("NOTSET", "VALID"):
        return list(im.attr("pads", [0, 0, 0, 0])) if auto == "NOTSET" else [0, 0, 0, 0]
    want = list(shape)[-2:] if shape is not None else [n * s for n, s in zip(in_hw, strides)]
    total = [s * (n - 1) + op + k - o for n, s, k, op, o in
             zip(in_hw, strides, kernel, opad, want)]
    if auto == "SAME_UPPER":
        begin = [t // 2 for t in total]
    else:
        begin = [t - t // 2 for t in total]
    return begin + [t - b for t, b in zip(total, begin)]
