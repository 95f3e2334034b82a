"""SimplifyInference: drop identity and inference-time dropout nodes."""

from __future__ import annotations

from ..ir.graph import Graph
from ..ops import has_trait
from .base import Pass, register_pass
from .rewrite import bypass


@register_pass("simplify")
class SimplifyInference(Pass):
    """Removes ops that are the identity at inference (trait pass_through: identity,
    dropout)."""

    reads_pending = True  # reads no constant's values

    def run(self, graph: Graph, ctx) -> Graph:
        for n in [n for n in graph.nodes if has_trait(n.op, "pass_through")]:
            bypass(graph, n)
        return graph
