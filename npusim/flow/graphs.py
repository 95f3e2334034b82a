"""The graph builder, for tools on top of flow that make their own models (npusim.scalesim's
one-layer graphs): flow.GraphBuilder is the compiler's, so they need not import the compiler."""

from compiler.frontend.builder import GraphBuilder

__all__ = ["GraphBuilder"]
