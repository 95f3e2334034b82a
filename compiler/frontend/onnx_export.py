"""ONNX exporter of float NCHW graphs, so onnxruntime can serve as an independent reference."""

from __future__ import annotations

import numpy as np

from ..errors import FrontendError
from ..ir.graph import Graph
from ..ops.shape import PERMS

_EXPORTERS: dict = {}


def exporter(*ops):
    def deco(fn):
        for op in ops:
            _EXPORTERS[op] = fn
        return fn
    return deco


class _Exporter:
    def __init__(self, graph: Graph):
        self.g, self.nodes, self.inits = graph, [], []

    def const(self, array: np.ndarray, base: str) -> str:
        from onnx import numpy_helper
        name = f"{base}__{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def add(self, op_type: str, inputs, output: str, name: str, **attrs) -> None:
        from onnx import helper
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], name=name, **attrs))


def _nchw_only(n, attr="layout"):
    if n.attrs.get(attr, "NCHW") != "NCHW" or n.attrs.get("kernel_layout", "OIHW") != "OIHW":
        raise FrontendError(f"node '{n.name}' ({n.op}) is in {n.attrs.get(attr)} layout; ONNX "
                            "export takes the float NCHW graph from before ConvertLayout")


def _window(n) -> dict:
    return {"strides": list(n.attrs["strides"]), "pads": list(n.attrs["pads"])}


@exporter("nn.conv2d")
def _conv(ex: _Exporter, n):
    _nchw_only(n)
    w = ex.g.type_of(n.inputs[1])
    ex.add("Conv", n.inputs, n.output, n.name, kernel_shape=list(w.shape[2:]),
           dilations=list(n.attrs["dilations"]), group=n.attrs["groups"], **_window(n))


@exporter("nn.dense", "nn.matmul")
def _matmul(ex, n):
    alpha = n.attrs.get("alpha", 1.0)
    if alpha == 1.0:
        return ex.add("MatMul", n.inputs, n.output, n.name)
    ex.add("MatMul", n.inputs, f"{n.output}__mm", n.name)
    ex.add("Mul", [f"{n.output}__mm", ex.const(np.array(alpha, np.float32), "alpha")],
           n.output, f"{n.name}__alpha")


@exporter("nn.softmax")
def _softmax(ex, n):
    x = n.inputs[0]
    if len(n.inputs) > 1:
        ex.add("Add", n.inputs, f"{n.output}__masked", f"{n.name}__mask")
        x = f"{n.output}__masked"
    ex.add("Softmax", [x], n.output, n.name, axis=n.attrs["axis"])


@exporter("slice")
def _slice(ex, n):
    a = n.attrs
    ins = [n.inputs[0]] + [ex.const(np.array([v], np.int64), k) for k, v in
                           (("starts", a["start"]), ("ends", a["end"]), ("axes", a["axis"]))]
    ex.add("Slice", ins, n.output, n.name)


@exporter("nn.layer_norm")
def _layer_norm(ex, n):
    ex.add("LayerNormalization", n.inputs, n.output, n.name, axis=-1,
           epsilon=n.attrs["epsilon"])


@exporter("gelu")
def _gelu(ex, n):
    """The forms every opset reads: 0.5 x (1 + erf(x / sqrt 2)), or the tanh one."""
    x, o = n.inputs[0], n.output
    c = lambda v, base: ex.const(np.array(v, np.float32), base)  # noqa: E731
    if n.attrs["approximate"] == "tanh":
        ex.add("Pow", [x, c(3.0, "three")], f"{o}__x3", f"{n.name}__x3")
        ex.add("Mul", [f"{o}__x3", c(0.044715, "k")], f"{o}__kx3", f"{n.name}__kx3")
        ex.add("Add", [x, f"{o}__kx3"], f"{o}__in", f"{n.name}__in")
        ex.add("Mul", [f"{o}__in", c(np.sqrt(2 / np.pi), "c")], f"{o}__arg", f"{n.name}__arg")
        ex.add("Tanh", [f"{o}__arg"], f"{o}__f", f"{n.name}__f")
    else:
        ex.add("Div", [x, c(np.sqrt(2.0), "sqrt2")], f"{o}__arg", f"{n.name}__arg")
        ex.add("Erf", [f"{o}__arg"], f"{o}__f", f"{n.name}__f")
    ex.add("Add", [f"{o}__f", c(1.0, "one")], f"{o}__1f", f"{n.name}__1f")
    ex.add("Mul", [x, f"{o}__1f"], f"{o}__x1f", f"{n.name}__x1f")
    ex.add("Mul", [f"{o}__x1f", c(0.5, "half")], o, n.name)


@exporter("nn.bias_add")
def _bias_add(ex, n):
    x = ex.g.type_of(n.inputs[0])
    axis = n.attrs["axis"] % x.rank
    bias = n.inputs[1]
    trailing = [1] * (x.rank - 1 - axis)  # numpy/ONNX broadcasting right-aligns shapes
    if trailing and bias in ex.g.constants:
        bias = ex.const(ex.g.constants[bias].reshape([-1] + trailing), bias)
    elif trailing:
        shape = ex.const(np.array([-1] + trailing, np.int64), "bias_shape")
        ex.add("Reshape", [bias, shape], f"{n.output}__b", f"{n.name}__b")
        bias = f"{n.output}__b"
    ex.add("Add", [n.inputs[0], bias], n.output, n.name)


@exporter("nn.batch_norm")
def _bn(ex, n):
    if n.attrs["axis"] % ex.g.type_of(n.inputs[0]).rank != 1:
        raise FrontendError(f"node '{n.name}': ONNX BatchNormalization normalizes axis 1, this "
                            f"one axis {n.attrs['axis']}")
    ex.add("BatchNormalization", n.inputs, n.output, n.name, epsilon=n.attrs["epsilon"])


@exporter("nn.max_pool2d")
def _maxpool(ex, n):
    _nchw_only(n)
    ex.add("MaxPool", n.inputs, n.output, n.name, kernel_shape=list(n.attrs["kernel"]),
           **_window(n))


@exporter("nn.avg_pool2d")
def _avgpool(ex, n):
    _nchw_only(n)
    ex.add("AveragePool", n.inputs, n.output, n.name, kernel_shape=list(n.attrs["kernel"]),
           count_include_pad=int(n.attrs["count_include_pad"]), **_window(n))


@exporter("nn.global_avg_pool2d")
def _gap(ex, n):
    _nchw_only(n)
    ex.add("GlobalAveragePool", n.inputs, n.output, n.name)


@exporter("clip")
def _clip(ex, n):
    lo, hi = n.attrs["min"], n.attrs["max"]
    ins = [n.inputs[0],
           ex.const(np.array(lo, np.float32), "clip_min") if np.isfinite(lo) else "",
           ex.const(np.array(hi, np.float32), "clip_max") if np.isfinite(hi) else ""]
    ex.add("Clip", ins, n.output, n.name)




@exporter("embedding")
def _embedding(ex, n):
    ex.add("Gather", n.inputs, n.output, n.name, axis=n.attrs["axis"])


@exporter("flatten")
def _flatten(ex, n):
    ex.add("Flatten", n.inputs, n.output, n.name, axis=n.attrs["axis"])


@exporter("reshape")
def _reshape(ex, n):
    shape = ex.const(np.array(ex.g.type_of(n.output).shape, np.int64), "shape")
    ex.add("Reshape", [n.inputs[0], shape], n.output, n.name)


@exporter("concat")
def _concat(ex, n):
    ex.add("Concat", n.inputs, n.output, n.name, axis=n.attrs["axis"])


@exporter("transpose")
def _transpose(ex, n):
    ex.add("Transpose", n.inputs, n.output, n.name, perm=list(n.attrs["axes"]))


@exporter("layout_transform")
def _layout_transform(ex, n):
    perm = PERMS[(n.attrs["src_layout"], n.attrs["dst_layout"])]
    ex.add("Transpose", n.inputs, n.output, n.name, perm=list(perm))


_SIMPLE = {"nn.relu": "Relu", "sigmoid": "Sigmoid", "add": "Add", "multiply": "Mul",
           "identity": "Identity", "nn.dropout": "Identity"}


def export_onnx(graph: Graph, path=None, opset: int = 17):
    """Float graph -> onnx.ModelProto (saved to `path` if given)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    ex = _Exporter(graph)
    for n in graph.nodes:
        if n.op in _SIMPLE:
            ex.add(_SIMPLE[n.op], n.inputs, n.output, n.name)
        elif n.op in _EXPORTERS:
            _EXPORTERS[n.op](ex, n)
        else:
            raise FrontendError(f"node '{n.name}': op '{n.op}' has no ONNX export; export the "
                                "float graph from before FuseOps/quantize (exportable: "
                                f"{', '.join(sorted(set(_EXPORTERS) | set(_SIMPLE)))})")
    elem = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16,
            "int64": TensorProto.INT64, "int32": TensorProto.INT32}  # ints: token ids

    def info(v):
        t = graph.type_of(v)
        if t.dtype not in elem:
            raise FrontendError(f"value '{v}' is {t}; ONNX export takes float graphs")
        return helper.make_tensor_value_info(v, elem[t.dtype], list(t.shape))

    inits = [numpy_helper.from_array(np.asarray(a), k) for k, a in graph.constants.items()]
    og = helper.make_graph(ex.nodes, graph.name, [info(v) for v in graph.inputs],
                           [info(v) for v in graph.outputs], inits + ex.inits)
    model = helper.make_model(og, producer_name="npusim-compiler",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8  # readable by every onnxruntime since 1.10
    if path is not None:
        onnx.save(model, str(path))
    return model
