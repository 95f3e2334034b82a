"""ONNX op handlers: each converts one ONNX node into graph IR ops (see onnx_import)."""

from __future__ import annotations

import numpy as np

from ..ir.types import TensorType
from .onnx_import import _array, _Importer, handler
from .onnx_ops_act import binary
from .onnx_resample import dilated_maxpool


# ---------------------------------------------------------------- window helpers

def _window_attrs(im: _Importer, in_hw: tuple, kernel: tuple, dilations=(1, 1)) -> dict:
    strides = tuple(im.attr("strides", [1, 1]))
    auto_pad = im.attr("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if len(kernel) != 2:
        im.fail(f"only 2-D windows are supported, kernel_shape is {list(kernel)}")
    if auto_pad in ("NOTSET", ""):
        p = tuple(im.attr("pads", [0, 0, 0, 0]))
    elif auto_pad == "VALID":
        p = (0, 0, 0, 0)
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        total = [max((-(-s // st) - 1) * st + d * (k - 1) + 1 - s, 0)
                 for s, st, k, d in zip(in_hw, strides, kernel, dilations)]
        lo = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in total]
        p = (lo[0], lo[1], total[0] - lo[0], total[1] - lo[1])
    else:
        im.fail(f"auto_pad '{auto_pad}' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER")
    # ONNX pads are (x1_begin, x2_begin, x1_end, x2_end) = (top, left, bottom, right).
    return {"strides": strides, "pads": p}


def _ceil_pads(im: _Importer, in_hw: tuple, kernel: tuple, attrs: dict, dilations=(1, 1),
               exact: bool = False) -> dict:
    """ceil_mode=1 as extra bottom/right padding: the last window may hang over the edge but
    must start inside the input or its left padding (ONNX's and PyTorch's rule). exact: the
    extra padding would change the result (average pooling's divisor), so refuse it."""
    if not im.attr("ceil_mode", 0):
        return attrs
    pads = list(attrs["pads"])
    for i, (size, k, s, d) in enumerate(zip(in_hw, kernel, attrs["strides"], dilations)):
        lo, hi = pads[i], pads[i + 2]
        span = d * (k - 1) + 1
        out = -(-(size + lo + hi - span) // s) + 1
        if (out - 1) * s >= size + lo:
            out -= 1
        extra = max((out - 1) * s + span - (size + lo + hi), 0)
        if extra and exact:
            im.fail("ceil_mode=1 adds a partial window whose divisor counts only the input; "
                    "the NPU scales every output by one constant (pad explicitly, or use "
                    "ceil_mode=0)")
        pads[i + 2] = hi + extra
    return {**attrs, "pads": tuple(pads)}


# ---------------------------------------------------------------- handlers

@handler("Conv", note="2-D; groups (depthwise), dilations, pads, auto_pad")
def _conv(im: _Importer):
    x, w = im.input(0), im.input(1)
    wt = im.type_of(w)
    if wt.rank != 4:
        im.fail(f"only 2-D convolution is supported, weights are {wt}")
    kernel = tuple(im.attr("kernel_shape", wt.shape[2:]))
    dil = tuple(im.attr("dilations", [1, 1]))
    attrs = _window_attrs(im, im.type_of(x).shape[2:], kernel, dil)
    has_bias = im.input(2) is not None
    out = im.emit("nn.conv2d", [x, w], im.tmp("conv") if has_bias else None, dilations=dil,
                  groups=im.attr("group", 1), **attrs)
    if has_bias:
        im.emit("nn.bias_add", [out, im.input(2)], axis=1)


@handler("Gemm", note="transA, transB, alpha, beta; constant B becomes a dense layer")
def _gemm(im: _Importer):
    a, alpha, beta = im.input(0), im.attr("alpha", 1.0), im.attr("beta", 1.0)
    if im.type_of(a).rank != 2:
        im.fail(f"Gemm input A must be 2-D, got {im.type_of(a)}")
    if im.attr("transA", 0):
        a = im.emit("transpose", [a], im.tmp("At"), axes=(1, 0))
    trans_b = im.attr("transB", 0)
    has_c = im.input(2) is not None
    out = im.tmp("gemm") if has_c else None
    if im.is_const(im.input(1)):
        b = im.const(1, "B")
        w = (b.T if trans_b else b) * np.float32(alpha)
        im.emit("nn.dense", [a, im.constant(w.astype(b.dtype), f"{im.input(1)}__w")], out)
    else:
        if alpha != 1.0:
            im.fail("alpha != 1 needs a constant B")
        b = im.input(1)
        if trans_b:
            b = im.emit("transpose", [b], im.tmp("Bt"), axes=(1, 0))
        im.emit("nn.matmul", [a, b], out)
    if has_c:
        c = im.input(2)
        if im.is_const(c):
            cv = im.consts[c] * np.float32(beta)
            n = im.type_of(out).shape[1]
            if cv.size == 1:  # a scalar bias: the same value for every output feature
                cv = np.full(n, cv.reshape(-1)[0], np.float32)
            if cv.size == n and cv.shape in ((n,), (1, n)):
                b = c if beta == 1.0 and im.consts[c].shape == (n,) else im.constant(
                    cv.reshape(n), f"{c}__bias")
                return im.emit("nn.bias_add", [out, b], axis=-1)
            im.fail(f"C {list(cv.shape)} is not one value per output feature ({n}); a "
                    "constant that varies over the batch has no NPU form")
        elif beta != 1.0:
            im.fail("beta != 1 needs a constant C")
        binary(im, "add", out, c)


@handler("MatMul", note="constant 2-D B (dense); two activations (batched, broadcasting: "
         "attention's Q.K^T and P.V), a scalar scale of either folded in")
def _matmul(im: _Importer):
    a, b = im.input(0), im.input(1)
    if im.is_const(b) and im.type_of(b).rank == 2:
        return im.emit("nn.dense", [a, b])
    from .onnx_ops_transformer import unscaled
    (a, sa), (b, sb) = unscaled(im, a), unscaled(im, b)
    im.emit("nn.matmul", [im.materialize(a), im.materialize(b)], alpha=sa * sb)


@handler("Relu")
def _relu(im: _Importer):
    im.emit("nn.relu", [im.input(0)])


@handler("Sigmoid", runs="table", note="fixed output scale 1/127")
def _sigmoid(im: _Importer):
    im.emit("sigmoid", [im.input(0)])


@handler("Identity", runs="import", note="removed by simplify")
def _identity(im: _Importer):
    im.emit("identity", [im.input(0)])


@handler("Dropout", runs="import",
         note="inference: the identity; the mask output may exist if nothing reads it")
def _dropout(im: _Importer):
    im.single_output()
    ratio = im.attr("ratio", 0.5)
    if im.input(1) is not None:
        ratio = float(im.const(1, "ratio").reshape(-1)[0])
    if im.input(2) is not None and bool(im.const(2, "training_mode").reshape(-1)[0]):
        im.fail("training_mode=true; only inference graphs are supported")
    im.emit("nn.dropout", [im.input(0)], rate=ratio)


@handler("Clip", note="min/max attributes before opset 11, constant inputs from 11")
def _clip(im: _Importer):
    if im.opset < 11:
        lo, hi = im.attr("min", -np.inf), im.attr("max", np.inf)
    else:
        lo = float(im.const(1, "min").reshape(-1)[0]) if im.input(1) else -np.inf
        hi = float(im.const(2, "max").reshape(-1)[0]) if im.input(2) else np.inf
    im.emit("clip", [im.input(0)], min=lo, max=hi)


def _channel_bias(xt: TensorType, c: np.ndarray):
    """`c` as a 1-D bias if it varies only along the channel axis of a 2-D/4-D `xt`."""
    if xt.rank not in (2, 4) or c.ndim > xt.rank:
        return None
    axis = 1 if xt.rank == 4 else xt.rank - 1
    expect = [1] * xt.rank
    expect[axis] = xt.shape[axis]
    padded = [1] * (xt.rank - c.ndim) + list(c.shape)  # numpy right-aligns shapes
    return c.reshape(-1) if padded == expect else None


@handler("Add",
         note="activations (one may broadcast: a stride-0 DMA copy), per-channel or scalar "
         "constants (folded into the conv before, or a depthwise 1x1), a constant of the "
         "activation's shape (a position embedding, streamed from DRAM), a mask before a "
         "Softmax")
def _add(im: _Importer):
    x, y = im.input(0), im.input(1)
    if im.is_const(x) and not im.is_const(y):
        x, y = y, x
    # A constant that only varies along the channel axis is a bias (the form exporters
    # use for Conv+Add); recognising it lets FuseOps fold it into the conv's epilogue.
    bias = _channel_bias(im.type_of(x), im.consts[y]) if im.is_const(y) else None
    if bias is not None:
        b = y if bias.shape == im.consts[y].shape else im.constant(bias, f"{y}__bias")
        return im.emit("nn.bias_add", [x, b],
                       axis=1 if im.type_of(x).rank == 4 else -1)
    from .onnx_ops_transformer import add_mask, mask_of
    if im.is_const(y) and mask_of(im.consts[y]):  # an attention mask, for the Softmax after
        return add_mask(im, x, y)
    if im.is_const(y) and not im.is_const(x) and _channel_vector_or_scalar(im, x, y) is None \
            and np.broadcast_shapes(im.consts[y].shape, im.type_of(x).shape) == \
            im.type_of(x).shape:  # a position embedding: streamed from DRAM by the add
        return im.emit("add", [x, y])
    binary(im, "add", x, y)


def _channel_vector_or_scalar(im: _Importer, x: str, c: str):
    from .onnx_ops_act import _channel_vector
    return _channel_vector(im, x, im.consts[c])


@handler("Mul", note="as Add; the SE block's (N,C,1,1) gate is broadcast by DMA")
def _mul(im: _Importer):
    binary(im, "mul", im.input(0), im.input(1))


@handler("MaxPool",
         note="2-D; pads, auto_pad, ceil_mode; the Indices output only if unread; dilations: "
         "an undilated pool per phase (space-to-depth copies, depth_to_space)")
def _maxpool(im: _Importer):
    im.single_output()
    dil = tuple(im.attr("dilations", [1, 1]))
    kernel = tuple(im.attr("kernel_shape"))
    x = im.input(0)
    hw = im.type_of(x).shape[2:]
    attrs = _ceil_pads(im, hw, kernel, _window_attrs(im, hw, kernel, dil), dil)
    if dil != (1, 1):
        return dilated_maxpool(im, x, kernel, attrs, dil)
    im.emit("nn.max_pool2d", [x], kernel=kernel, **attrs)


@handler("AveragePool",
         note="2-D; pads, auto_pad, ceil_mode; count_include_pad=0 with padding (Inception's, "
         "ShuffleNet's): the padded average times a table of window size / valid count")
def _avgpool(im: _Importer):
    if tuple(im.attr("dilations", [1, 1])) != (1, 1):
        im.fail("dilated average pooling is not supported (the pool registers have no "
                "dilation)")
    kernel = tuple(im.attr("kernel_shape"))
    x = im.input(0)
    hw = im.type_of(x).shape[2:]
    include = bool(im.attr("count_include_pad", 0))
    attrs = _ceil_pads(im, hw, kernel, _window_attrs(im, hw, kernel), exact=include)
    if include or not any(attrs["pads"]):
        return im.emit("nn.avg_pool2d", [x], kernel=kernel, count_include_pad=include, **attrs)
    _avg_excluding_pads(im, x, kernel, attrs)


def _avg_excluding_pads(im: _Importer, x: str, kernel: tuple, attrs: dict) -> str:
    """Average pooling that leaves the padding out of each window's count, as NPU ops: the
    padded average (one divisor) times k*k / count, where count/(k*k) is that same pooling of
    a tensor of ones (a table of x that maps every value to 1, whatever x's scale) and the
    reciprocal a table (power -1)."""
    avg = im.emit("nn.avg_pool2d", [x], im.tmp("avg"), kernel=kernel, count_include_pad=True,
                  **attrs)
    ones = im.emit("fill", [x], im.tmp("ones"), value=1.0)
    share = im.emit("nn.avg_pool2d", [ones], im.tmp("share"), kernel=kernel,
                    count_include_pad=True, **attrs)
    inv = im.emit("power", [share], im.tmp("inv"), exponent=-1.0)
    return im.emit("multiply", [avg, inv])


@handler("GlobalAveragePool")
def _gap(im: _Importer):
    im.emit("nn.global_avg_pool2d", [im.input(0)])


@handler("BatchNormalization",
         note="inference; folded into the conv/Gemm before it, else a depthwise 1x1")
def _bn(im: _Importer):
    im.single_output()
    if im.attr("training_mode", 0):
        im.fail("training_mode=1; only inference batch norm is supported")
    im.emit("nn.batch_norm", [im.input(i) for i in range(5)], epsilon=im.attr("epsilon", 1e-5),
            axis=1)


@handler("Flatten", note="a reshape (no data moves)")
def _flatten(im: _Importer):
    im.emit("flatten", [im.input(0)], axis=im.attr("axis", 1))


@handler("Reshape", note="constant or shape-computed target; 0 and -1")
def _reshape(im: _Importer):
    x = im.input(0)
    shape = [int(d) for d in im.const(1, "shape").reshape(-1)]
    in_shape = im.type_of(x).shape
    if not im.attr("allowzero", 0):  # 0 copies the input's dimension
        shape = [in_shape[i] if d == 0 else d for i, d in enumerate(shape)]
    im.emit("reshape", [x], shape=tuple(shape))


@handler("Concat", note="any axis; int8 requantizes each input to one scale")
def _concat(im: _Importer):
    im.emit("concat", [v for v in im.node.input if v], axis=im.attr("axis"))


@handler("Softmax", note="any axis, anywhere (on the NPU; a graph's last Softmax runs on the "
         "host); an Add/Where of a constant mask before it becomes its mask; before opset 13 "
         "over the last axis only")
def _softmax(im: _Importer):
    shape = im.type_of(im.input(0)).shape
    rank = len(shape)
    axis = im.attr("axis", -1 if im.opset >= 13 else 1) % rank
    if im.opset < 13 and axis != rank - 1:
        # before opset 13 Softmax normalizes over the axes axis.. flattened: one axis when
        # the others there are 1 (a classifier's (N, 1000, 1, 1), SqueezeNet's)
        wide = [a for a in range(axis, rank) if shape[a] > 1]
        if len(wide) > 1:
            im.fail(f"Softmax before opset 13 normalizes over the flattened axes {axis}.. of "
                    f"{list(shape)}; only one of them may exceed 1")
        axis = wide[0] if wide else rank - 1
    x, mask = im.input(0), []
    prod = im.g.producers().get(x)
    if prod is not None and prod.op == "add" and prod.inputs[1] in im.g.constants:
        x, mask = prod.inputs[0], [prod.inputs[1]]  # the add is pruned if nothing else reads it
    im.emit("nn.softmax", [x] + mask, axis=axis)


@handler("Transpose", note="any permutation (strided DMA copy): ShuffleNet's channel shuffle")
def _transpose(im: _Importer):
    x = im.input(0)
    perm = im.attr("perm", list(range(im.type_of(x).rank))[::-1])
    im.emit("transpose", [x], axes=tuple(perm))


@handler("Constant", runs="import", note="value, value_float(s), value_int(s), sparse_value")
def _constant(im: _Importer):
    import onnx.numpy_helper
    forms = {"value": lambda v: onnx.numpy_helper.to_array(v),
             "value_float": lambda v: np.asarray(v, np.float32),
             "value_floats": lambda v: np.asarray(v, np.float32),
             "value_int": lambda v: np.asarray(v, np.int64),
             "value_ints": lambda v: np.asarray(v, np.int64),
             "sparse_value": _sparse_to_dense}
    for a in im.node.attribute:
        if a.name in forms:
            im.consts[im.node.output[0]] = _array(forms[a.name](im.attr(a.name)))
            return
    im.fail(f"Constant has none of the forms {', '.join(forms)} (value_string(s) hold text, "
            "not tensor data)")


def _sparse_to_dense(sparse) -> np.ndarray:
    import onnx.numpy_helper
    values = onnx.numpy_helper.to_array(sparse.values)
    idx = onnx.numpy_helper.to_array(sparse.indices)
    dense = np.zeros(int(np.prod(sparse.dims)), values.dtype)
    flat = idx if idx.ndim == 1 else np.ravel_multi_index(idx.T, tuple(sparse.dims))
    dense[flat] = values
    return dense.reshape(tuple(sparse.dims))
