"""InferTypes: normalize every node's attributes and recompute every value's TensorType."""

from __future__ import annotations

from ..ir.graph import Graph
from ..ir.types import TensorType
from ..ops import get_op
from .base import Pass, register_pass


def infer_types(graph: Graph) -> Graph:
    """In place: sort topologically, fill default attributes, type every value."""
    graph.topo_sort()
    types = {v: graph.types[v] for v in graph.inputs if v in graph.types}
    types.update({v: TensorType.of(a) for v, a in graph.constants.items()})
    for n in graph.nodes:
        where = f"node '{n.name}' ({n.op})"
        op = get_op(n.op)
        n.attrs = op.normalize_attrs(n.attrs, where)
        missing = [v for v in n.inputs if v not in types]
        if missing:
            from ..errors import GraphError
            raise GraphError(f"{where} reads {', '.join(repr(v) for v in missing)}, which "
                             "nothing defines (dangling edge)")
        types[n.output] = op.infer_type([types[v] for v in n.inputs], n.attrs, where)
    graph.types = types
    return graph


@register_pass("infer-types")
class InferTypes(Pass):
    """Shape and dtype inference over the whole graph (also run after every rewrite)."""

    def run(self, graph: Graph, ctx) -> Graph:
        return infer_types(graph)
