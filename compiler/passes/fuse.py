"""FuseOps: conv2d/dense + bias_add + relu/clip (+ residual add + relu/clip) -> one op."""

from __future__ import annotations

import numpy as np

from ..ir.graph import Graph, Node
from ..ops import get_hook, has_trait
from .base import Pass, register_pass
from .rewrite import channel_axis, single_user


def _act(node: Node) -> dict:
    """{kind, min, max} of an activation the epilogue can apply (the op's fuse_act hook)."""
    return get_hook(node.op, "fuse_act")(node)


def _is_act(node: Node) -> bool:
    return get_hook(node.op, "fuse_act") is not None


@register_pass("fuse")
class FuseOps(Pass):
    """Each conv2d/dense absorbs the chain its result feeds when every link has one reader:
    bias_add (constant, channel axis), then relu/clip, then (residual=True) an add whose
    other operand is ready - produced before the conv in the schedule, so the vector unit
    can read it while the conv's epilogue runs - then relu/clip. Every conv/dense becomes
    fused.conv2d/fused.dense (zero bias when it had none), which quantize expects."""

    OPTIONS = {"residual": True, "activations": True}

    def run(self, graph: Graph, ctx) -> Graph:
        for n in list(graph.nodes):
            if get_hook(n.op, "fused_as") is not None and n in graph.nodes:
                self._fuse(graph, n)
        return graph

    def _fuse(self, graph: Graph, lin: Node) -> None:
        users = graph.consumers()
        pos = {m.output: i for i, m in enumerate(graph.nodes)}
        chain, cur = [lin], lin.output
        axis = channel_axis(graph, lin)
        rank = graph.type_of(lin.output).rank
        attrs = dict(lin.attrs)

        def follow(ok) -> Node | None:
            nxt = single_user(graph, cur, users)
            return nxt if nxt is not None and nxt.inputs[0] == cur and ok(nxt) else None

        bias = None
        nxt = follow(lambda m: has_trait(m.op, "bias_add") and m.inputs[1] in graph.constants
                     and m.attrs["axis"] % rank == axis)
        if nxt is not None:
            bias, cur = nxt.inputs[1], nxt.output
            chain.append(nxt)
        if self.options["activations"]:
            nxt = follow(_is_act)
            if nxt is not None:
                a = _act(nxt)
                attrs.update(act=a["kind"], act_min=a["min"], act_max=a["max"])
                cur = nxt.output
                chain.append(nxt)
        residual = None
        if self.options["residual"]:
            nxt = single_user(graph, cur, users)
            if nxt is not None and has_trait(nxt.op, "residual_add") and cur in nxt.inputs:
                other = nxt.inputs[1] if nxt.inputs[0] == cur else nxt.inputs[0]
                ready = other in graph.inputs or (other in pos and pos[other] < pos[lin.output])
                if other != cur and other not in graph.constants and ready and \
                        graph.type_of(other) == graph.type_of(cur):
                    attrs["pre_add"] = cur
                    residual, cur = other, nxt.output
                    chain.append(nxt)
                    nxt = follow(_is_act) if self.options["activations"] \
                        else None
                    if nxt is not None:
                        a = _act(nxt)
                        attrs.update(post_act=a["kind"], post_min=a["min"], post_max=a["max"])
                        cur = nxt.output
                        chain.append(nxt)
        if bias is None:
            cout = graph.type_of(lin.output).shape[axis]
            dtype = graph.type_of(lin.output).dtype
            bias = graph.add_constant(f"{lin.name}.bias_zero", np.zeros(cout, dtype))
        attrs["pattern"] = "+".join(m.op.split(".")[-1] for m in chain)
        inputs = [lin.inputs[0], lin.inputs[1], bias] + ([residual] if residual else [])
        fused = Node(get_hook(lin.op, "fused_as"), inputs, cur, attrs, lin.name)
        graph.nodes[graph.nodes.index(lin)] = fused
        for m in chain[1:]:
            graph.nodes.remove(m)
        for m in chain[:-1]:
            graph.types.pop(m.output, None)
