"""Quantize: the calibrated, fused NHWC float graph -> an int8 graph of qnn.* ops."""

from __future__ import annotations

import numpy as np

from .. import qscheme as qs
from ..errors import QuantizationError
from ..host import host_lookups
from ..ir.graph import Graph, Node
from ..ops import get_hook
from .base import Pass, register_pass


class _Quantizer:
    def __init__(self, graph: Graph, absmax: dict):
        self.f, self.absmax = graph, absmax
        self.q = Graph(graph.name)
        self.scale: dict = {}

    # ---------------------------------------------------------------- scales
    def calibrated(self, v: str) -> float:
        if v not in self.absmax:
            raise QuantizationError(
                f"value '{v}' has no calibration statistics; run 'calibrate' after "
                "'convert-layout' and before 'fuse' and 'quantize'")
        return qs.act_scale(self.absmax[v])

    def const(self, base: str, array) -> str:
        return self.q.add_constant(base, array)

    def emit(self, n: Node, op: str, inputs, scale: float, **attrs) -> None:
        self.q.add_node(Node(op, inputs, n.output, attrs, n.name))
        self.scale[n.output] = scale

    def need_act(self, n: Node, v: str) -> str:
        if v in self.f.constants:
            raise QuantizationError(f"node '{n.name}' ({n.op}) has constant operand '{v}'; "
                                    "only activation operands are supported after quantize "
                                    "(run fold-constants, or fold it into a conv/dense)")
        return v

    def need_nhwc(self, n: Node) -> None:
        if n.attrs.get("layout", "NHWC") != "NHWC":
            raise QuantizationError(f"node '{n.name}' ({n.op}) is NCHW; run 'convert-layout' "
                                    "before 'quantize' (the NPU computes NHWC)")

    def input(self, n: Node) -> tuple:
        """(first operand, its scale): the operand must be an activation."""
        x = self.need_act(n, n.inputs[0])
        return x, self.scale[x]

    # ---------------------------------------------------------------- ops
    def visit(self, n: Node) -> None:
        """Each op's own rule (its 'quantize' hook, beside its definition in compiler/ops)."""
        rule = get_hook(n.op, "quantize")
        if rule is None:
            hint = get_hook(n.op, "quantize_hint", "")
            raise QuantizationError(f"node '{n.name}': op '{n.op}' cannot be quantized for "
                                    "the NPU" + (f"; {hint}" if hint else ""))
        rule(self, n)


def _host_step(n: Node):
    """The (kind, arg) step the host runs for `n` at a graph's edge (the op's host_step hook:
    softmax, layout changes), or None when `n` must run on the NPU."""
    step = get_hook(n.op, "host_step")
    return step(n) if step is not None else None


def _host_boundaries(f: Graph) -> tuple:
    """(input bindings, output bindings, nodes to skip): a layout transform right after an
    input and host steps (softmax, layout transforms) right before an output run on the
    host."""
    users, producers = f.consumers(), f.producers()
    skip, inputs, outputs = set(), [], []
    for v in f.inputs:
        readers = users.get(v, [])
        lookups = _host_lookups(f, v)
        if lookups:
            inputs += lookups
            skip.update(b["qname"] for b in lookups)
            continue
        perm, qname = None, v
        step = _host_step(readers[0]) if len(readers) == 1 and v not in f.outputs else None
        if step is not None and step[0] == "transpose":
            skip.add(readers[0].output)
            perm, qname = step[1], readers[0].output
        inputs.append({"name": v, "qname": qname, "perm": perm})
    for v in f.outputs:
        post, cur = [], v
        while cur in producers and _host_step(producers[cur]) is not None and \
                len(users.get(producers[cur].inputs[0], [])) == 1 and \
                producers[cur].inputs[0] not in f.inputs:  # else the NPU would compute nothing
            n = producers[cur]
            post.insert(0, _host_step(n))
            skip.add(cur)
            cur = n.inputs[0]
        outputs.append({"name": v, "qname": cur, "post": post})
    return inputs, outputs, skip


def _host_lookups(f: Graph, v: str) -> list:
    """Input bindings of an integer model input `v` (token ids) read by embedding lookups
    (compiler.host.host_lookups): the host gathers the quantized table's rows into each
    lookup's output, which the NPU reads as its input; [] for a float input."""
    out = []
    for n, (kind, (table, axis)) in host_lookups(f, v):
        rows = f.constants[table]
        out.append({"name": v, "qname": n.output, "perm": None,
                    "scale": qs.act_scale(float(np.abs(rows).max())),
                    "pre": [(kind, (table, axis))], "table": table,
                    "shape": tuple(f.type_of(v).shape), "dtype": f.type_of(v).dtype,
                    "index_bound": int(rows.shape[axis % rows.ndim])})
    return out


@register_pass("quantize")
class Quantize(Pass):
    """int8 post-training quantization (the scheme in compiler/qscheme.py). Needs
    graph.meta['calibration'] (from 'calibrate') and fused conv/dense ops. The result holds
    only int8/int32 values; host steps at the edges (quantize + NCHW->NHWC of inputs,
    dequantize + NHWC->NCHW / softmax of outputs) are described in graph.meta['host']."""

    def run(self, graph: Graph, ctx) -> Graph:
        calib = graph.meta.get("calibration")
        if calib is None:
            raise QuantizationError("graph has no calibration; run 'calibrate' before "
                                    "'quantize'")
        qz = _Quantizer(graph, calib["absmax"])
        inputs, outputs, skip = _host_boundaries(graph)
        tables = {}
        for b in inputs:
            if "pre" not in b:
                b["scale"] = qz.calibrated(b["name"])
            else:  # the host's lookup reads the table quantized once, at the table's scale
                tables.setdefault(b["table"], qs.quantize(graph.constants[b["table"]],
                                                          b["scale"]))
            qz.scale[b["qname"]] = b["scale"]
            qz.q.add_input(b["qname"], graph.type_of(b["qname"]).with_dtype("int8"))
        for n in graph.nodes:
            if n.output not in skip:
                qz.visit(n)
        q = qz.q
        for b in outputs:
            b["scale"] = qz.scale[b["qname"]]
        q.outputs = [b["qname"] for b in outputs]
        q.meta.update(host={"inputs": inputs, "outputs": outputs, "tables": tables},
                      scales=dict(qz.scale),
                      calibration=calib)
        return q
