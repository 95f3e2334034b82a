"""ONNX importer: an onnx ModelProto (or file) -> a verified float graph IR (NCHW, OIHW)."""

from __future__ import annotations

import numpy as np

from ..errors import CompilerError, FrontendError
from ..ir.graph import Graph, Node
from ..ir.types import TensorType
from ..ir.verify import verify
from ..ops import get_op

_HANDLERS: dict = {}


def handler(*op_types):
    def deco(fn):
        for t in op_types:
            _HANDLERS[t] = fn
        return fn
    return deco


def supported_ops() -> list:
    return sorted(_HANDLERS)


class _Importer:
    """Holds the graph under construction and the ONNX node being converted."""

    def __init__(self, graph: Graph, opset: int, consts: dict):
        # ONNX constants (initializers, Constant nodes) join the graph only when an op reads
        # them as data; shape/axis constants are consumed here and never reach the IR.
        self.g, self.opset, self.node, self.consts = graph, opset, None, consts

    def is_const(self, name: str | None) -> bool:
        return name in self.consts

    def type_of(self, name: str) -> TensorType:
        return TensorType.of(self.consts[name]) if name in self.consts else self.g.type_of(name)

    def materialize(self, name: str) -> str:
        if name in self.consts and not self.g.defines(name):
            a = self.consts[name]
            if str(a.dtype) not in ("float32", "float16", "int8", "int32"):
                self.fail(f"constant '{name}' ({a.dtype}) is used as tensor data; only "
                          "float32/float16/int8/int32 tensors are supported")
            self.g.add_constant(name, a)
        return name

    # -- reading the current node
    def attr(self, name: str, default=None):
        import onnx.helper
        for a in self.node.attribute:
            if a.name == name:
                return onnx.helper.get_attribute_value(a)
        return default

    def input(self, i: int) -> str | None:
        ins = self.node.input
        return ins[i] if i < len(ins) and ins[i] else None

    def const(self, i: int, what: str) -> np.ndarray:
        name = self.input(i)
        if name is None or name not in self.consts:
            self.fail(f"input {i} ({what}) must be a constant initializer; a computed {what} "
                      "is not supported")
        return self.consts[name]

    def fail(self, msg: str):
        n = self.node
        raise FrontendError(f"ONNX node '{n.name or n.output[0]}' ({n.op_type}, opset "
                            f"{self.opset}): {msg}")

    def where(self) -> str:
        return f"ONNX node '{self.node.name or self.node.output[0]}' ({self.node.op_type})"

    # -- building
    def constant(self, array: np.ndarray, base: str) -> str:
        name = self.g.fresh_name(base)
        while name in self.consts:
            name = self.g.fresh_name(name + "_")
        return self.g.add_constant(name, array)

    def emit(self, op: str, inputs, output: str | None = None, **attrs) -> str:
        """Add `op`; output defaults to the ONNX node's first output."""
        output = output or self.node.output[0]
        opdef = get_op(op)
        inputs = [self.materialize(v) for v in inputs]
        where = self.where()
        try:
            attrs = opdef.normalize_attrs(attrs, where)
            t = opdef.infer_type([self.g.type_of(v) for v in inputs], attrs, where)
        except CompilerError as e:
            raise FrontendError(str(e)) from None
        self.g.add_node(Node(op, list(inputs), output, attrs,
                             self.node.name or output), t)
        return output

    def tmp(self, suffix: str) -> str:
        return self.g.fresh_name(f"{self.node.output[0]}__{suffix}")

    def single_output(self) -> None:
        if len([o for o in self.node.output if o]) > 1:
            self.fail(f"only the first output is supported, the model uses "
                      f"{list(self.node.output)}")


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


def _no_ceil_mode(im: _Importer) -> None:
    if im.attr("ceil_mode", 0):
        im.fail("ceil_mode=1 is not supported; pad the bottom/right explicitly instead")


# ---------------------------------------------------------------- handlers

@handler("Conv")
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


@handler("Gemm")
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
            if cv.size == n and cv.shape in ((n,), (1, n)):
                b = c if beta == 1.0 and cv.shape == (n,) else im.constant(cv.reshape(n),
                                                                          f"{c}__bias")
                return im.emit("nn.bias_add", [out, b], axis=-1)
            c = im.constant(cv.astype(np.float32), f"{c}__c")
        elif beta != 1.0:
            im.fail("beta != 1 needs a constant C")
        im.emit("add", [out, c])


@handler("MatMul")
def _matmul(im: _Importer):
    a, b = im.input(0), im.input(1)
    if im.is_const(b) and im.type_of(b).rank == 2:
        im.emit("nn.dense", [a, b])
    else:
        im.emit("nn.matmul", [a, b])


@handler("Relu")
def _relu(im: _Importer):
    im.emit("nn.relu", [im.input(0)])


@handler("Sigmoid")
def _sigmoid(im: _Importer):
    im.emit("sigmoid", [im.input(0)])


@handler("Identity")
def _identity(im: _Importer):
    im.emit("identity", [im.input(0)])


@handler("Dropout")
def _dropout(im: _Importer):
    im.single_output()
    ratio = im.attr("ratio", 0.5)
    if im.input(1) is not None:
        ratio = float(im.const(1, "ratio").reshape(-1)[0])
    if im.input(2) is not None and bool(im.const(2, "training_mode").reshape(-1)[0]):
        im.fail("training_mode=true; only inference graphs are supported")
    im.emit("nn.dropout", [im.input(0)], rate=ratio)


@handler("Clip")
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


@handler("Add")
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
    im.emit("add", [x, y])


@handler("Mul")
def _mul(im: _Importer):
    im.emit("multiply", [im.input(0), im.input(1)])


@handler("MaxPool")
def _maxpool(im: _Importer):
    im.single_output()
    _no_ceil_mode(im)
    if tuple(im.attr("dilations", [1, 1])) != (1, 1):
        im.fail("dilated max pooling is not supported")
    kernel = tuple(im.attr("kernel_shape"))
    x = im.input(0)
    im.emit("nn.max_pool2d", [x], kernel=kernel,
            **_window_attrs(im, im.type_of(x).shape[2:], kernel))


@handler("AveragePool")
def _avgpool(im: _Importer):
    _no_ceil_mode(im)
    kernel = tuple(im.attr("kernel_shape"))
    x = im.input(0)
    im.emit("nn.avg_pool2d", [x], kernel=kernel,
            count_include_pad=bool(im.attr("count_include_pad", 0)),
            **_window_attrs(im, im.type_of(x).shape[2:], kernel))


@handler("GlobalAveragePool")
def _gap(im: _Importer):
    im.emit("nn.global_avg_pool2d", [im.input(0)])


@handler("BatchNormalization")
def _bn(im: _Importer):
    im.single_output()
    if im.attr("training_mode", 0):
        im.fail("training_mode=1; only inference batch norm is supported")
    im.emit("nn.batch_norm", [im.input(i) for i in range(5)], epsilon=im.attr("epsilon", 1e-5),
            axis=1)


@handler("Flatten")
def _flatten(im: _Importer):
    im.emit("flatten", [im.input(0)], axis=im.attr("axis", 1))


@handler("Reshape")
def _reshape(im: _Importer):
    x = im.input(0)
    shape = [int(d) for d in im.const(1, "shape").reshape(-1)]
    in_shape = im.type_of(x).shape
    if not im.attr("allowzero", 0):  # 0 copies the input's dimension
        shape = [in_shape[i] if d == 0 else d for i, d in enumerate(shape)]
    im.emit("reshape", [x], shape=tuple(shape))


@handler("Concat")
def _concat(im: _Importer):
    im.emit("concat", [v for v in im.node.input if v], axis=im.attr("axis"))


@handler("Softmax")
def _softmax(im: _Importer):
    rank = im.type_of(im.input(0)).rank
    axis = im.attr("axis", -1 if im.opset >= 13 else 1)
    if im.opset < 13 and axis % rank != rank - 1:
        im.fail(f"Softmax before opset 13 normalizes over the flattened axes {axis}.., only "
                "the last axis is supported")
    im.emit("nn.softmax", [im.input(0)], axis=axis)


@handler("Transpose")
def _transpose(im: _Importer):
    x = im.input(0)
    perm = im.attr("perm", list(range(im.type_of(x).rank))[::-1])
    im.emit("transpose", [x], axes=tuple(perm))


@handler("Constant")
def _constant(im: _Importer):
    import onnx.numpy_helper
    value = im.attr("value")
    if value is None:
        im.fail("only the 'value' form of Constant is supported")
    im.consts[im.node.output[0]] = _array(onnx.numpy_helper.to_array(value))


# ---------------------------------------------------------------- driver

def _array(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.float64:
        return a.astype(np.float32)
    return a


def _load(model):
    import onnx
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    return onnx.load(str(model))


def import_onnx(model, input_shapes: dict | None = None, name: str | None = None) -> Graph:
    """Import an ONNX model (ModelProto, bytes or path). Dynamic input dimensions need
    `input_shapes={name: shape}`. Unsupported ops stop with the node, op, opset and the list
    of supported ops."""
    import onnx.numpy_helper
    from onnx import TensorProto

    model = _load(model)
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    og = model.graph
    g = Graph(name or og.name or "onnx")
    consts = {init.name: _array(onnx.numpy_helper.to_array(init)) for init in og.initializer}
    input_shapes = dict(input_shapes or {})
    for vi in og.input:
        if vi.name in consts:
            continue
        tt = vi.type.tensor_type
        if tt.elem_type not in (TensorProto.FLOAT, TensorProto.FLOAT16):
            raise FrontendError(f"ONNX input '{vi.name}' has element type "
                                f"{TensorProto.DataType.Name(tt.elem_type)}; float32/float16 "
                                "inputs only")
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        shape = input_shapes.pop(vi.name, None) or dims
        if any(d is None or d < 1 for d in shape):
            raise FrontendError(f"ONNX input '{vi.name}' has dynamic shape "
                                f"{[d if d else '?' for d in dims]}; pass "
                                f"input_shapes={{'{vi.name}': (1, ...)}}")
        dtype = "float32" if tt.elem_type == TensorProto.FLOAT else "float16"
        g.add_input(vi.name, TensorType(tuple(shape), dtype))
    if input_shapes:
        raise FrontendError(f"input_shapes names {', '.join(input_shapes)}, which are not "
                            f"model inputs ({', '.join(g.inputs)})")

    im = _Importer(g, opset, consts)
    for i, node in enumerate(og.node):
        im.node = node
        if node.domain not in ("", "ai.onnx"):
            im.fail(f"domain '{node.domain}' is not supported; supported ops (default "
                    f"domain): {', '.join(supported_ops())}")
        fn = _HANDLERS.get(node.op_type)
        if fn is None:
            raise FrontendError(
                f"ONNX node '{node.name or node.output[0]}' (#{i}): op '{node.op_type}' "
                f"(opset {opset}) is not supported; supported: {', '.join(supported_ops())}")
        fn(im)
    g.outputs = [im.materialize(vi.name) for vi in og.output]
    g.prune()
    verify(g)
    return g
