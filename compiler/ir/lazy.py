"""LazyGraph: a Graph built on first use (a cached front half's float model, rebuilt on demand)."""

from __future__ import annotations

from typing import Callable

from .graph import Graph


class LazyGraph(Graph):
    """The Graph `build()` returns, built when one of its attributes is first read.

    A cached front half holds only what the back half needs; the float model (the float
    reference's graph: ~100 MB for ResNet-50, which lowering never reads) is rebuilt from its
    source instead, for the few callers that want it (verify, random inputs). It is a Graph
    for isinstance, and pickles and copies as the plain Graph it becomes."""

    def __init__(self, build: Callable[[], Graph]):  # no Graph.__init__: build() supplies all
        self.__dict__["_build"] = build

    def __getattr__(self, name: str):  # only reached for attributes not set yet
        build = self.__dict__.get("_build")
        if build is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        graph = build()
        self.__dict__.pop("_build", None)
        self.__dict__.update(graph.__dict__)
        return getattr(self, name)

    def __reduce_ex__(self, protocol):
        self.name  # built first
        return _plain_graph, (dict(self.__dict__),)


def _plain_graph(state: dict) -> Graph:
    graph = Graph.__new__(Graph)
    graph.__dict__.update(state)
    return graph
