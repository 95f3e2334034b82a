"""ONNX importer: an onnx ModelProto (or file) -> a verified float graph IR (NCHW, OIHW)."""

from __future__ import annotations

import numpy as np

from ..errors import CompilerError, FrontendError
from ..ir.graph import Graph, Node
from ..ir.types import TensorType
from ..ir.verify import verify
from ..ops import get_op

_HANDLERS: dict = {}
_INFO: dict = {}   # ONNX op -> (where it runs, note): what docs/onnx.md lists

RUNS = {"npu": "NPU (int8 and fp16)", "int8": "NPU (int8: a vlut table; fp16 has no table op)",
        "host": "host, as a graph's last op (after the NPU's output is dequantized)",
        "import": "at import (folded to a constant, or the identity)",
        "table": "NPU (int8: a vlut table; fp16: a program of float vector ops, "
                 "compiler/lower/vecfn.py)"}


def handler(*op_types, runs: str = "npu", note: str = ""):
    """Register the converter of ONNX `op_types`; `runs` (a RUNS key) and `note` are what
    docs/onnx.md says of them."""
    if runs not in RUNS:
        raise ValueError(f"handler runs={runs!r} is not one of {', '.join(RUNS)}")

    def deco(fn):
        for t in op_types:
            _HANDLERS[t] = fn
            _INFO[t] = (runs, note)
        return fn
    return deco


def handler_info() -> dict:
    """ONNX op -> (where it runs, note) for every supported op."""
    supported_ops()
    info = {op: _INFO[op] for op in _HANDLERS}
    info.update({op: ("import", "shape subgraphs: folded when the input shapes are known")
                 for op in _FOLDED if op not in info})
    return dict(sorted(info.items()))


def supported_ops() -> list:
    # the handlers register on import, one module per family
    from . import (onnx_ops, onnx_ops_act, onnx_ops_shape, onnx_ops_spatial,  # noqa: F401
                   onnx_ops_transformer)
    return sorted(_HANDLERS)


# ops the importer folds to constants (onnx_fold) when their inputs are known; listed as
# supported, with no handler of their own
_FOLDED = {"Shape": None, "Size": None, "Gather": None, "ConstantOfShape": None,
           "Range": None, "Equal": None, "Where": None, "Floor": None, "Ceil": None,
           "Expand": None}


class _Importer:
    """Holds the graph under construction and the ONNX node being converted."""

    def __init__(self, graph: Graph, opset: int, consts: dict, read: set = frozenset()):
        # ONNX constants (initializers, Constant nodes) join the graph only when an op reads
        # them as data; shape/axis constants are consumed here and never reach the IR.
        self.g, self.opset, self.node, self.consts = graph, opset, None, consts
        self.read = read  # every value some node or the graph's outputs read
        self.read_twice: set = set()  # ... and those read more than once (no fusing them)

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
        """Extra outputs (Dropout's mask, BatchNormalization's statistics, MaxPool's
        indices) are fine as long as nothing reads them, as exporters leave them."""
        used = [o for o in self.node.output[1:] if o and o in self.read]
        if used:
            self.fail(f"only the first output is supported; the model reads {used} too")

    def ints(self, attr: str, i: int, default=None):
        """An int list given as attribute `attr` (older opsets) or as constant input `i`
        (newer ones: Squeeze/Unsqueeze/Split/ReduceMean axes, Pad pads)."""
        if self.input(i) is not None:
            return [int(v) for v in self.const(i, attr).reshape(-1)]
        value = self.attr(attr)
        return default if value is None else [int(v) for v in value]


# ---------------------------------------------------------------- driver

def _array(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.float64:
        return a.astype(np.float32)
    return a


def _load(model):
    import onnx
    from google.protobuf.message import DecodeError
    if isinstance(model, onnx.ModelProto):
        return model
    what = "ONNX bytes" if isinstance(model, (bytes, bytearray)) else f"ONNX model '{model}'"
    try:
        if isinstance(model, (bytes, bytearray)):
            proto = onnx.load_from_string(bytes(model))
        else:
            proto = onnx.load(str(model))
    except OSError as e:
        raise FrontendError(f"cannot read {what}: {e.strerror or e}") from None
    except (DecodeError, ValueError) as e:  # protobuf's parse error, onnx's format checks
        raise FrontendError(f"cannot read {what}: not a valid ONNX protobuf ({e})") from None
    except onnx.checker.ValidationError as e:  # e.g. an external data file that is missing
        reason = str(e).rstrip(".")
        raise FrontendError(f"cannot read {what}: {reason}; are its external data files "
                            "beside it?") from None
    if not proto.graph.output:  # protobuf parses an empty (or lucky) byte string as a model
        raise FrontendError(f"cannot read {what}: it has no graph outputs (empty, or not an "
                            "ONNX model)")
    return proto


def import_onnx(model, input_shapes: dict | None = None, name: str | None = None) -> Graph:
    """Import an ONNX model (ModelProto, bytes or path). Dynamic input dimensions need
    `input_shapes={name: shape}` (`--input-shape NAME=1x3x224x224` on the command line).
    Unsupported ops stop with the node, op, opset and the list of supported ops. A file
    (a path) must also pass onnx's checker and load in onnxruntime (onnx_check), or it is
    refused with their reason."""
    import onnx.numpy_helper
    from onnx import TensorProto

    from . import onnx_check, onnx_fold, onnx_patterns
    path = None if isinstance(model, (onnx.ModelProto, bytes, bytearray)) else str(model)
    model = _load(model)
    if path is not None:
        onnx_check.check_model(path, f"ONNX model '{path}'")
        onnx_check.check_onnxruntime(path, f"ONNX model '{path}'")
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    og = model.graph
    g = Graph(name or og.name or "onnx")
    consts = {init.name: _array(onnx.numpy_helper.to_array(init)) for init in og.initializer}
    input_shapes = dict(input_shapes or {})
    names = [vi.name for vi in og.input if vi.name not in consts]
    unknown = [k for k in input_shapes if k not in names]
    if unknown:
        raise FrontendError(f"an input shape is given for {', '.join(map(repr, unknown))}, "
                            f"not an input of the ONNX model (its inputs: {', '.join(names)})")
    for vi in og.input:
        if vi.name in consts:
            continue
        tt = vi.type.tensor_type
        if tt.elem_type not in _INPUT_DTYPES:
            raise FrontendError(f"ONNX input '{vi.name}' has element type "
                                f"{TensorProto.DataType.Name(tt.elem_type)}; float32/float16 "
                                "inputs, and int64/int32 token ids (read by Gather)")
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        symbols = [d.dim_param or f"d{i}" for i, d in enumerate(tt.shape.dim)]
        shape = _input_shape(vi.name, dims, symbols, input_shapes.pop(vi.name, None))
        g.add_input(vi.name, TensorType(tuple(shape), _INPUT_DTYPES[tt.elem_type]))

    supported_ops()
    nodes = onnx_patterns.rewrite(og.node, consts)  # decomposed LayerNorm / GELU: one node
    read = {v for n in nodes for v in n.input} | {vi.name for vi in og.output}
    im = _Importer(g, opset, consts, read)
    counts: dict = {}
    for v in [v for n in nodes for v in n.input] + [vi.name for vi in og.output] * 2:
        counts[v] = counts.get(v, 0) + 1
    im.read_twice = {v for v, c in counts.items() if c > 1}
    for i, node in enumerate(nodes):
        im.node = node
        if onnx_fold.fold(im, node):
            continue
        if node.domain not in ("", "ai.onnx"):
            version = next((o.version for o in model.opset_import
                            if o.domain == node.domain), "?")
            raise FrontendError(
                f"ONNX node '{node.name or node.output[0]}' (#{i}): op '{node.op_type}' of "
                f"domain '{node.domain}' (opset {version}) is not supported; it would not run "
                "on the host either (the host runs only softmax and layout changes, at a "
                "graph's outputs); supported: the default domain's "
                f"{', '.join(supported_ops())}")
        fn = _HANDLERS.get(node.op_type)
        if fn is None and node.op_type in _FOLDED:
            im.fail("it is folded to a constant only when its inputs are known at import "
                    "(a shape subgraph); of a computed tensor it would not run on the NPU or "
                    "the host")
        if fn is None:
            raise FrontendError(
                f"ONNX node '{node.name or node.output[0]}' (#{i}): op '{node.op_type}' "
                f"(opset {opset}) is not supported; it would not run on the host either "
                "(the host runs only softmax and layout changes, at a graph's outputs); "
                f"supported: {', '.join(supported_ops())}")
        fn(im)
    g.outputs = [im.materialize(vi.name) for vi in og.output]
    g.prune()
    verify(g)
    _check_declared_outputs(og, g)
    if path is not None:  # after the importer's own checks, which name the value exactly
        onnx_check.check_inferred(path, f"ONNX model '{path}'")
    _check_value_info(og, g)  # what onnx's full check says of a file, for a ModelProto too
    return g


# ONNX TensorProto element type -> the graph input's dtype (FLOAT=1, INT32=6, INT64=7,
# FLOAT16=10); the integer ones are token ids an embedding lookup (Gather) reads
_INPUT_DTYPES = {1: "float32", 10: "float16", 7: "int64", 6: "int32"}


def _input_shape(name: str, dims: list, symbols: list, given) -> tuple:
    """An input's shape: its declared dims, or `given` (input_shapes[name]) where some are
    symbolic; given must be positive integers of the declared rank that keep each fixed dim."""
    shown = [d if d else "?" for d in dims]
    if given is None:
        if any(d is None or d < 1 for d in dims):
            form = "x".join(str(d) if d else s for d, s in zip(dims, symbols))
            raise FrontendError(f"ONNX input '{name}' has dynamic shape {shown}; give its shape "
                                f"with --input-shape {name}={form}, each symbolic dimension a "
                                f"number (npusim run/compile), or input_shapes={{'{name}': "
                                "(1, ...)} (Python)")
        return tuple(dims)
    try:
        shape = tuple(int(d) for d in given)
        exact = all(int(d) == d for d in given)
    except (TypeError, ValueError):
        shape, exact = (), False
    if not exact or not shape or any(d < 1 for d in shape):
        raise FrontendError(f"input shape {given!r} for ONNX input '{name}' must be positive "
                            f"integers, e.g. {tuple(d or 1 for d in dims)}")
    if len(shape) != len(dims) or any(d and d != s for d, s in zip(dims, shape)):
        raise FrontendError(f"input shape {list(shape)} for ONNX input '{name}' contradicts "
                            f"its declared shape {shown}: give {len(dims)} dimensions that keep "
                            "the fixed ones")
    return shape


def _disagreeing_declaration(vi, inferred: list) -> list | None:
    """The shape a ValueInfoProto declares (symbolic dimensions as "?") when it disagrees with
    `inferred`, else None; a declaration without a shape, and symbolic dimensions, agree."""
    if not vi.type.tensor_type.HasField("shape"):
        return None
    declared = [d.dim_value if d.HasField("dim_value") else None
                for d in vi.type.tensor_type.shape.dim]
    if len(declared) == len(inferred) and all(
            d is None or d == n for d, n in zip(declared, inferred)):
        return None
    return [d if d is not None else "?" for d in declared]


def _check_declared_outputs(og, g: Graph) -> None:
    """A graph output whose declared shape disagrees with the one its nodes compute is an
    error naming both (dimensions declared symbolic or left out are not compared)."""
    for vi, out in zip(og.output, g.outputs):
        inferred = list(g.type_of(out).shape)
        shown = _disagreeing_declaration(vi, inferred)
        if shown is not None:
            raise FrontendError(f"ONNX output '{vi.name}' is declared with shape {shown}, but "
                                f"the graph computes {inferred} for it; fix the declaration "
                                "(or leave its shape out)")


def _check_value_info(og, g: Graph) -> None:
    """A value_info entry (an exporter's declared intermediate shape) that disagrees with the
    shape the importer computes is an error naming both: it means a misread attribute."""
    for vi in og.value_info:
        if vi.name not in g.types:
            continue
        inferred = list(g.type_of(vi.name).shape)
        shown = _disagreeing_declaration(vi, inferred)
        if shown is not None:
            raise FrontendError(f"ONNX value '{vi.name}' is declared (value_info) with shape "
                                f"{shown}, but the importer computes {inferred}; the file's "
                                "declaration or an attribute the importer read is wrong")
