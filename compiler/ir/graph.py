"""The graph IR: named SSA values, single-output op nodes, constants held as numpy arrays."""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from ..errors import GraphError
from .types import TensorType


@dataclass
class Node:
    """One op application: `output = op(*inputs, **attrs)`; inputs name values."""

    op: str
    inputs: list
    output: str
    attrs: dict = field(default_factory=dict)
    name: str = ""

    def __post_init__(self):
        self.inputs = list(self.inputs)
        self.name = self.name or self.output

    def __repr__(self) -> str:
        return f"Node({self.name}: {self.op}({', '.join(self.inputs)}) -> {self.output})"


class Graph:
    """A dataflow graph: inputs and constants in, nodes in topological order, outputs out.

    Every value has one name and one producer (a graph input, a constant or a node);
    `types` records the TensorType of every value (see passes.InferTypes)."""

    def __init__(self, name: str = "main"):
        self.name = name
        self.inputs: list = []
        self.outputs: list = []
        self.constants: dict = {}
        self.nodes: list = []
        self.types: dict = {}
        self.meta: dict = {}  # pass results: calibration, scales, memory plan, layout notes

    # ---------------------------------------------------------------- construction
    def add_input(self, name: str, ttype: TensorType) -> str:
        self._claim(name)
        self.inputs.append(name)
        self.types[name] = ttype
        return name

    def add_constant(self, name: str, array) -> str:
        array = np.asarray(array)
        if array.ndim == 0:
            array = array.reshape(1)
        name = self.fresh_name(name)
        array = np.ascontiguousarray(array)
        array.setflags(write=False)  # constants are shared between graph copies
        self.constants[name] = array
        self.types[name] = TensorType.of(array)
        return name

    def add_node(self, node: Node, ttype: TensorType | None = None) -> Node:
        self._claim(node.output)
        self.nodes.append(node)
        if ttype is not None:
            self.types[node.output] = ttype
        return node

    def _claim(self, name: str) -> None:
        if self.defines(name):
            raise GraphError(f"value '{name}' is defined twice in graph '{self.name}'; "
                             "every value needs a unique name (use Graph.fresh_name)")

    def fresh_name(self, base: str) -> str:
        if not self.defines(base):
            return base
        for i in itertools.count(1):
            cand = f"{base}_{i}"
            if not self.defines(cand):
                return cand
        raise AssertionError("unreachable")

    # ---------------------------------------------------------------- queries
    def defines(self, name: str) -> bool:
        return (name in self.constants or name in self.inputs
                or any(n.output == name for n in self.nodes))

    def is_constant(self, name: str) -> bool:
        return name in self.constants

    def producers(self) -> dict:
        return {n.output: n for n in self.nodes}

    def consumers(self) -> dict:
        """value name -> list of nodes reading it (in node order)."""
        users: dict = {}
        for n in self.nodes:
            for v in dict.fromkeys(n.inputs):
                users.setdefault(v, []).append(n)
        return users

    def node(self, name: str) -> Node:
        for n in self.nodes:
            if n.name == name or n.output == name:
                return n
        raise GraphError(f"graph '{self.name}' has no node named '{name}'")

    def type_of(self, name: str) -> TensorType:
        try:
            return self.types[name]
        except KeyError:
            raise GraphError(f"value '{name}' has no type in graph '{self.name}'; "
                             "run InferTypes first") from None

    # ---------------------------------------------------------------- rewriting
    def topo_sort(self) -> None:
        """Reorder nodes topologically (stable); raise GraphError naming a cycle's nodes."""
        produced = self.producers()
        order, state = [], {}

        def visit(n: Node, path: list) -> None:
            if state.get(n.output) == "done":
                return
            if state.get(n.output) == "active":
                cycle = path[path.index(n.name):] + [n.name]
                raise GraphError(f"graph '{self.name}' has a cycle: {' -> '.join(cycle)}")
            state[n.output] = "active"
            for v in n.inputs:
                if v in produced:
                    visit(produced[v], path + [n.name])
            state[n.output] = "done"
            order.append(n)

        for n in self.nodes:
            visit(n, [])
        self.nodes = order

    def replace_uses(self, old: str, new: str, skip: Node | None = None) -> None:
        """Make every reader of `old` (and the graph outputs) read `new` instead."""
        for n in self.nodes:
            if n is not skip:
                n.inputs = [new if v == old else v for v in n.inputs]
        self.outputs = [new if v == old else v for v in self.outputs]

    def rename(self, old: str, new: str) -> None:
        """Rename value `old` everywhere (its producer, readers, types, outputs)."""
        self._claim(new)
        for n in self.nodes:
            if n.output == old:
                n.output = new
        if old in self.constants:
            self.constants[new] = self.constants.pop(old)
        self.inputs = [new if v == old else v for v in self.inputs]
        self.replace_uses(old, new)
        if old in self.types:
            self.types[new] = self.types.pop(old)

    def prune(self) -> None:
        """Drop nodes and constants that no graph output depends on."""
        produced = self.producers()
        live, stack = set(), list(self.outputs)
        while stack:
            v = stack.pop()
            if v in live:
                continue
            live.add(v)
            if v in produced:
                stack.extend(produced[v].inputs)
        self.nodes = [n for n in self.nodes if n.output in live]
        self.constants = {k: a for k, a in self.constants.items() if k in live}
        keep = live | set(self.inputs)
        self.types = {k: t for k, t in self.types.items() if k in keep}

    def copy(self) -> "Graph":
        """Deep copy of the structure; constant arrays are shared (they are read-only)."""
        g = Graph(self.name)
        g.inputs, g.outputs = list(self.inputs), list(self.outputs)
        g.constants = dict(self.constants)
        g.nodes = [Node(n.op, list(n.inputs), n.output, copy.deepcopy(n.attrs), n.name)
                   for n in self.nodes]
        g.types = dict(self.types)
        g.meta = copy.deepcopy(self.meta)
        if getattr(self, "pending", None) is not None:  # constants still being filled
            g.pending = self.pending                     # (compiler.ir.pending)
        return g

    def values(self) -> Iterable:
        yield from self.inputs
        yield from self.constants
        for n in self.nodes:
            yield n.output

    def ops(self) -> dict:
        """op name -> count, for summaries and tests."""
        counts: dict = {}
        for n in self.nodes:
            counts[n.op] = counts.get(n.op, 0) + 1
        return counts

    def __str__(self) -> str:
        from .printer import format_graph
        return format_graph(self)

    def __repr__(self) -> str:
        return (f"Graph({self.name!r}, {len(self.inputs)} inputs, {len(self.nodes)} nodes, "
                f"{len(self.constants)} constants)")
