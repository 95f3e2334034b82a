"""Graph IR: typed tensors, op nodes, graphs, the verifier and the text printer."""

from .graph import Graph, Node
from .printer import format_graph
from .types import DTYPES, TensorType
from .verify import verify

__all__ = ["DTYPES", "Graph", "Node", "TensorType", "format_graph", "verify"]
