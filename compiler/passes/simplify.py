"""SimplifyInference: drop identity and inference-time dropout nodes."""

from __future__ import annotations

from ..ir.graph import Graph
from .base import Pass, register_pass
from .rewrite import bypass

PASS_THROUGH = ("identity", "nn.dropout")


@register_pass("simplify")
class SimplifyInference(Pass):
    """Removes ops that are the identity at inference (identity, dropout)."""

    def run(self, graph: Graph, ctx) -> Graph:
        for n in [n for n in graph.nodes if n.op in PASS_THROUGH]:
            bypass(graph, n)
        return graph
