"""FoldConstants: evaluate nodes whose inputs are all constants, at compile time."""

from __future__ import annotations

import numpy as np

from ..ir.graph import Graph
from ..ir.pending import wait_for
from ..ops import get_op
from .base import Pass, register_pass


@register_pass("fold-constants")
class FoldConstants(Pass):
    """Every node whose inputs are all constants becomes a constant (its reference compute
    is run once); constants no longer read are dropped."""

    reads_pending = True  # waits for the constants it folds (compiler.ir.pending)

    def run(self, graph: Graph, ctx) -> Graph:
        for n in list(graph.nodes):
            if n.inputs and all(v in graph.constants for v in n.inputs) \
                    and n.output not in graph.outputs:
                wait_for(graph, n.inputs)
                op = get_op(n.op)
                value = op.compute([graph.constants[v] for v in n.inputs],
                                   op.normalize_attrs(n.attrs, n.name))
                graph.nodes.remove(n)
                graph.types.pop(n.output, None)
                graph.add_constant(n.output, np.asarray(value))
        graph.prune()
        return graph
