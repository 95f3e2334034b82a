"""A small Relay-like Python API that builds verified float graphs op by op."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import GraphError
from ..ir.graph import Graph, Node
from ..ir.types import TensorType
from ..ir.verify import verify
from ..ops import get_op


@dataclass(frozen=True)
class Var:
    """A value under construction; `+` and `*` build add / multiply nodes."""

    name: str
    type: TensorType
    builder: "GraphBuilder" = field(repr=False, compare=False)

    @property
    def shape(self) -> tuple:
        return self.type.shape

    @property
    def dtype(self) -> str:
        return self.type.dtype

    def __add__(self, other):
        return self.builder.add(self, other)

    def __mul__(self, other):
        return self.builder.multiply(self, other)


def pads4(pad) -> tuple:
    """int -> all sides; (ph, pw) -> symmetric; (top, left, bottom, right) as is."""
    if np.isscalar(pad):
        return (int(pad),) * 4
    pad = tuple(int(p) for p in pad)
    if len(pad) == 2:
        return pad + pad
    if len(pad) == 4:
        return pad
    raise GraphError(f"pad {pad} must be an int, (ph, pw) or (top, left, bottom, right)")


def pair(v) -> tuple:
    return (int(v), int(v)) if np.isscalar(v) else tuple(int(x) for x in v)


class GraphBuilder:
    """b = GraphBuilder("net"); x = b.input("x", (1, 3, 32, 32)); y = b.relu(b.conv2d(x, w))

    Types are inferred as each op is added, so a shape error points at the line that made
    it. Weights given as numpy arrays become named constants (conv: OIHW; dense: (in, out))."""

    def __init__(self, name: str = "main"):
        self.graph = Graph(name)
        self._count: dict = {}

    # ---------------------------------------------------------------- values
    def _fresh(self, base: str) -> str:
        while True:
            i = self._count.get(base, 0)
            self._count[base] = i + 1
            name = base if i == 0 and base[-1:].isalpha() else f"{base}{i}"
            if not self.graph.defines(name):
                return name

    def input(self, name: str, shape, dtype: str = "float32") -> Var:
        t = TensorType(tuple(shape), dtype)
        self.graph.add_input(name, t)
        return Var(name, t, self)

    def const(self, array, name: str = "const") -> Var:
        name = self.graph.add_constant(name, array)
        return Var(name, self.graph.types[name], self)

    def _ref(self, x, name: str) -> str:
        if isinstance(x, Var):
            if x.builder is not self:
                raise GraphError(f"value '{x.name}' belongs to another GraphBuilder")
            return x.name
        return self.const(self._as_array(x), name).name

    def _param(self, x, name: str):
        return x if x is None or isinstance(x, Var) else self.const(self._as_array(x), name)

    @staticmethod
    def _as_array(x) -> np.ndarray:
        array = np.asarray(x)
        return array.astype(np.float32) if array.dtype == np.float64 else array

    def op(self, op_name: str, inputs, name: str | None = None, **attrs) -> Var:
        """Add any registered op; the generic form behind the named helpers."""
        opdef = get_op(op_name)
        out = name or self._fresh(op_name.split(".")[-1])
        refs = [self._ref(x, f"{out}.{opdef.inputs[i].rstrip('?')}")
                for i, x in enumerate(inputs)]
        where = f"node '{out}' ({op_name})"
        attrs = opdef.normalize_attrs(attrs, where)
        t = opdef.infer_type([self.graph.types[r] for r in refs], attrs, where)
        self.graph.add_node(Node(op_name, refs, out, attrs), t)
        return Var(out, t, self)

    # ---------------------------------------------------------------- nn
    def conv2d(self, x, w, b=None, stride=1, pad=0, dilation=1, groups=1, name=None,
               layout="NCHW", kernel_layout="OIHW") -> Var:
        name = name or self._fresh("conv")
        w, b = self._param(w, f"{name}.weight"), self._param(b, f"{name}.bias")
        y = self.op("nn.conv2d", [x, w], name if b is None else f"{name}.conv",
                    strides=pair(stride), pads=pads4(pad), dilations=pair(dilation),
                    groups=groups, layout=layout, kernel_layout=kernel_layout)
        if b is None:
            return y
        return self.bias_add(y, b, axis=1 if layout == "NCHW" else 3, name=name)

    def dense(self, x, w, b=None, name=None) -> Var:
        name = name or self._fresh("dense")
        w, b = self._param(w, f"{name}.weight"), self._param(b, f"{name}.bias")
        y = self.op("nn.dense", [x, w], name if b is None else f"{name}.matmul")
        return y if b is None else self.bias_add(y, b, axis=-1, name=name)

    def matmul(self, a, b, name=None) -> Var:
        return self.op("nn.matmul", [a, b], name)

    def bias_add(self, x, b, axis=1, name=None) -> Var:
        return self.op("nn.bias_add", [x, b], name, axis=axis)

    def batch_norm(self, x, gamma, beta, mean, var, eps=1e-5, axis=1, name=None) -> Var:
        return self.op("nn.batch_norm", [x, gamma, beta, mean, var], name, epsilon=eps,
                       axis=axis)

    def max_pool2d(self, x, kernel, stride=None, pad=0, layout="NCHW", name=None) -> Var:
        return self.op("nn.max_pool2d", [x], name, kernel=pair(kernel),
                       strides=pair(kernel if stride is None else stride), pads=pads4(pad),
                       layout=layout)

    def avg_pool2d(self, x, kernel, stride=None, pad=0, count_include_pad=False,
                   layout="NCHW", name=None) -> Var:
        return self.op("nn.avg_pool2d", [x], name, kernel=pair(kernel),
                       strides=pair(kernel if stride is None else stride), pads=pads4(pad),
                       count_include_pad=count_include_pad, layout=layout)

    def global_avg_pool2d(self, x, layout="NCHW", name=None) -> Var:
        return self.op("nn.global_avg_pool2d", [x], name, layout=layout)

    # ---------------------------------------------------------------- elementwise
    def relu(self, x, name=None) -> Var:
        return self.op("nn.relu", [x], name)

    def clip(self, x, lo, hi, name=None) -> Var:
        return self.op("clip", [x], name, min=lo, max=hi)

    def relu6(self, x, name=None) -> Var:
        return self.clip(x, 0.0, 6.0, name)

    def sigmoid(self, x, name=None) -> Var:
        return self.op("sigmoid", [x], name)

    def softmax(self, x, axis=-1, name=None) -> Var:
        return self.op("nn.softmax", [x], name, axis=axis)

    def add(self, a, b, name=None) -> Var:
        return self.op("add", [a, b], name)

    def multiply(self, a, b, name=None) -> Var:
        return self.op("multiply", [a, b], name)

    def identity(self, x, name=None) -> Var:
        return self.op("identity", [x], name)

    def dropout(self, x, rate=0.5, name=None) -> Var:
        return self.op("nn.dropout", [x], name, rate=rate)

    # ---------------------------------------------------------------- shapes
    def flatten(self, x, axis=1, name=None) -> Var:
        return self.op("flatten", [x], name, axis=axis)

    def reshape(self, x, shape, name=None) -> Var:
        return self.op("reshape", [x], name, shape=tuple(shape))

    def concat(self, xs, axis=1, name=None) -> Var:
        return self.op("concat", list(xs), name, axis=axis)

    def transpose(self, x, axes, name=None) -> Var:
        return self.op("transpose", [x], name, axes=tuple(axes))

    # ---------------------------------------------------------------- result
    def build(self, outputs) -> Graph:
        """Set the outputs (a Var or a list), drop unused values, verify, return the graph."""
        outs = [outputs] if isinstance(outputs, Var) else list(outputs)
        g = self.graph.copy()
        for o in outs:
            if not isinstance(o, Var) or o.builder is not self:
                raise GraphError(f"build() outputs must be values of this builder, got {o!r}")
        g.outputs = [o.name for o in outs]
        g.prune()
        verify(g)
        return g
