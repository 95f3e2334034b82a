"""ONNX activation and arithmetic handlers: table activations, PRelu, LRN, Sum, and the
broadcasting Add/Sub/Mul/Div of activations and constants (see onnx_import)."""

from __future__ import annotations

import numpy as np

from .onnx_import import _Importer, handler


def _simple(op: str, **fixed):
    def convert(im: _Importer):
        attrs = {k: im.attr(onnx_name, default) for k, (onnx_name, default) in fixed.items()}
        im.emit(op, [im.input(0)], **attrs)
    return convert


handler("HardSwish", runs="table")(_simple("hardswish"))
handler("HardSigmoid", runs="table")(_simple("hardsigmoid", alpha=("alpha", 0.2),
                                           beta=("beta", 0.5)))
handler("LeakyRelu", runs="table")(_simple("leaky_relu", alpha=("alpha", 0.01)))
handler("Tanh", runs="table")(_simple("tanh"))
handler("Elu", runs="table")(_simple("elu", alpha=("alpha", 1.0)))


def _channel_vector(im: _Importer, x: str, c: np.ndarray):
    """(axis, per-channel vector) for a constant that is a scalar or varies only along the
    channel axis of activation `x` (axis 1 of 4-D NCHW, else the last); None otherwise."""
    xt = im.type_of(x)
    axis = 1 if xt.rank == 4 else xt.rank - 1
    n = xt.shape[axis]
    if c.size == 1:
        return axis, np.full(n, c.reshape(-1)[0], np.float32)
    if c.ndim > xt.rank:
        return None
    padded = [1] * (xt.rank - c.ndim) + list(c.shape)
    expect = [1] * xt.rank
    expect[axis] = n
    return (axis, c.reshape(-1).astype(np.float32)) if padded == expect else None


def _affine(im: _Importer, x: str, scale, shift, output=None) -> str:
    """x * scale + shift per channel (fold-bn folds it into the conv before it, or makes
    it a depthwise 1x1 conv)."""
    xt = im.type_of(x)
    axis = 1 if xt.rank == 4 else xt.rank - 1
    n = xt.shape[axis]
    s = im.constant(np.broadcast_to(np.asarray(scale, np.float32), (n,)).copy(), "scale")
    b = im.constant(np.broadcast_to(np.asarray(shift, np.float32), (n,)).copy(), "shift")
    return im.emit("nn.channel_affine", [x, s, b], output, axis=axis)


def _same_shape(im: _Importer, x: str, y: str) -> tuple:
    """Both activations at the broadcast shape: the smaller one repeated by expand_as (a
    strided DMA copy on the NPU: an SE block's (N,C,1,1) gate against (N,C,H,W))."""
    tx, ty = im.type_of(x), im.type_of(y)
    if tx.shape == ty.shape:
        return x, y
    big, small = (x, y) if tx.numel >= ty.numel else (y, x)
    if np.broadcast_shapes(tx.shape, ty.shape) != im.type_of(big).shape:
        im.fail(f"{tx} and {ty} broadcast to a shape larger than both; only one operand may "
                "be broadcast")
    grown = im.emit("expand_as", [small, big], im.tmp("expand"))
    return (big, grown) if big == x else (grown, big)


def binary(im: _Importer, kind: str, x: str, y: str, output=None) -> str:
    """x (+ - * /) y for activations and constants: a constant that is a scalar or one value
    per channel is a channel_affine; two activations an elementwise op (one broadcast)."""
    if im.is_const(x) and im.is_const(y):
        im.fail("both operands are constants (it should have been folded)")
    if im.is_const(x) or im.is_const(y):
        swapped = im.is_const(x)
        act, c = (y, x) if swapped else (x, y)
        vec = _channel_vector(im, act, im.consts[c])
        if vec is None:
            im.fail(f"constant '{c}' {list(im.consts[c].shape)} broadcasts over more than the "
                    f"channel axis of {im.type_of(act)}; only scalars and per-channel "
                    "constants are supported")
        _, v = vec
        if kind in ("mul", "div") and im.consts[c].size == 1 and not swapped:
            from .onnx_ops_transformer import scale_matmul
            k = float(im.consts[c].reshape(-1)[0])
            done = scale_matmul(im, act, k if kind == "mul" else 1.0 / k, output)
            if done is not None:
                return done
        if kind == "add":
            return _affine(im, act, 1.0, v, output)
        if kind == "mul":
            return _affine(im, act, v, 0.0, output)
        if kind == "sub":
            return _affine(im, act, -1.0, v, output) if swapped else \
                _affine(im, act, 1.0, -v, output)
        if swapped:
            im.fail("a constant divided by an activation is not supported (no reciprocal)")
        return _affine(im, act, 1.0 / v, 0.0, output)
    if kind == "div":
        im.fail("division of two activations is not supported on the NPU")
    x, y = _same_shape(im, x, y)
    if kind == "sub":
        y = _affine(im, y, -1.0, 0.0, im.tmp("neg"))
    return im.emit("multiply" if kind == "mul" else "add", [x, y], output)


@handler("Sub", note="as Add; an activation minus another is add + a -1 scale (4-D)")
def _sub(im: _Importer):
    binary(im, "sub", im.input(0), im.input(1))


@handler("Div", note="by a scalar or per-channel constant")
def _div(im: _Importer):
    binary(im, "div", im.input(0), im.input(1))


@handler("Sum", note="variadic: a chain of adds")
def _sum(im: _Importer):
    """Variadic Sum (ResNet-50 v1 of the ONNX model zoo): a chain of adds."""
    ins = [v for v in im.node.input if v]
    if len(ins) == 1:
        return im.emit("identity", ins)
    acc = ins[0]
    for k, v in enumerate(ins[1:], 1):
        acc = binary(im, "add", acc, v, None if k == len(ins) - 1 else im.tmp(f"sum{k}"))
    return acc


@handler("Neg", note="a -1 channel scale (4-D, or after a conv/Gemm)")
def _neg(im: _Importer):
    _affine(im, im.input(0), -1.0, 0.0)


@handler("PRelu", note="scalar slope: a table; per-channel: relu + scaled min(x, 0)")
def _prelu(im: _Importer):
    """max(x, 0) + slope * min(x, 0): relu, plus a per-channel scale of clip(x, max=0)
    (a depthwise 1x1 conv after fold-bn, which fuse adds the relu to as its residual)."""
    x, slope = im.input(0), im.const(1, "slope")
    xt = im.type_of(x)
    if im.opset < 7 and slope.ndim == 1 and xt.rank > 1 and slope.size == xt.shape[1]:
        slope = slope.reshape((-1,) + (1,) * (xt.rank - 2))  # before opset 7: per channel
    vec = _channel_vector(im, x, slope)
    if vec is None:
        im.fail(f"slope {list(slope.shape)} must be a scalar or one value per channel")
    if slope.size == 1:
        return im.emit("leaky_relu", [x], alpha=float(slope.reshape(-1)[0]))
    pos = im.emit("nn.relu", [x], im.tmp("pos"))
    neg = im.emit("clip", [x], im.tmp("neg"), max=0.0)
    scaled = _affine(im, neg, vec[1], 0.0, im.tmp("scaled"))
    im.emit("add", [scaled, pos])


@handler("LRN", runs="int8", note="x*x, a banded 1x1 conv, a power table, a multiply")
def _lrn(im: _Importer):
    """x / (bias + alpha/size * sum of x^2 over `size` channels) ** beta (AlexNet,
    GoogLeNet): x*x, a banded 1x1 conv summing the window, then a power table and a
    multiply, all NPU ops."""
    x = im.input(0)
    xt = im.type_of(x)
    if xt.rank != 4:
        im.fail(f"LRN needs a 4-D NCHW input, got {xt}")
    size, alpha = int(im.attr("size")), float(im.attr("alpha", 1e-4))
    beta, bias = float(im.attr("beta", 0.75)), float(im.attr("bias", 1.0))
    c = xt.shape[1]
    lo, hi = (size - 1) // 2, -(-(size - 1) // 2)
    band = np.zeros((c, c, 1, 1), np.float32)
    for o in range(c):
        band[o, max(0, o - lo):min(c, o + hi + 1), 0, 0] = alpha / size
    sq = im.emit("multiply", [x, x], im.tmp("sq"))
    s = im.emit("nn.conv2d", [sq, im.constant(band, "lrn_band")], im.tmp("sum"))
    s = im.emit("nn.bias_add", [s, im.constant(np.full(c, bias, np.float32), "lrn_bias")],
                im.tmp("den"), axis=1)
    p = im.emit("power", [s], im.tmp("pow"), exponent=-beta)
    im.emit("multiply", [x, p])
