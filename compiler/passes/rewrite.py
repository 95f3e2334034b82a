"""Small graph-rewriting helpers shared by the passes."""

from __future__ import annotations

from ..ir.graph import Graph, Node
from ..ops import has_trait


def bypass(graph: Graph, node: Node) -> bool:
    """Remove a single-input pass-through node, wiring its readers to its input.
    Returns False (and keeps the node) when both ends must keep their names."""
    src, out = node.inputs[0], node.output
    if out in graph.outputs:
        if src in graph.inputs or src in graph.outputs or src in graph.constants:
            return False
        graph.nodes.remove(node)
        graph.types.pop(out, None)
        graph.rename(src, out)  # the graph output keeps its public name
        return True
    graph.nodes.remove(node)
    graph.replace_uses(out, src)
    graph.types.pop(out, None)
    return True


def single_user(graph: Graph, value: str, users: dict):
    """The only node reading `value`, or None if it has 0 or 2+ readers or is an output."""
    readers = users.get(value, [])
    if len(readers) != 1 or value in graph.outputs:
        return None
    return readers[0]


def channel_axis(graph: Graph, node: Node) -> int:
    """The channel axis of a conv2d/dense output: 1 (NCHW) or 3 (NHWC) for conv, last for dense."""
    if has_trait(node.op, "windowed"):
        return 1 if node.attrs["layout"] == "NCHW" else 3
    return graph.type_of(node.output).rank - 1
