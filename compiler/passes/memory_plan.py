"""PlanMemory: DRAM offsets for every tensor, reusing space between non-overlapping lifetimes
(over a graph's nodes, or a lowered program's layers for the backends' memory image)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import PassError
from ..ir.graph import Graph
from ..ops import has_trait
from .base import Pass, register_pass


@dataclass(frozen=True)
class Buffer:
    """A tensor's DRAM allocation: bytes at [offset, offset + nbytes), live from the node
    that produces it (first) to the last node that reads it (last), inclusive."""

    name: str
    nbytes: int
    first: int
    last: int
    offset: int = -1

    def overlaps_in_time(self, other: "Buffer") -> bool:
        return self.first <= other.last and other.first <= self.last


def _align(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def allocate(buffers: list, alignment: int = 64) -> tuple:
    """Greedy-by-size placement (TFLite's arena planner): largest first, each at the lowest
    aligned offset that does not collide with a time-overlapping buffer already placed.
    Returns (placed buffers, arena bytes)."""
    if alignment < 1:
        raise PassError(f"alignment {alignment} must be >= 1 byte")
    placed: list = []
    for b in sorted(buffers, key=lambda b: (-b.nbytes, b.first, b.name)):
        size = _align(max(b.nbytes, 1), alignment)
        busy = sorted((p.offset, p.offset + _align(max(p.nbytes, 1), alignment))
                      for p in placed if p.overlaps_in_time(b))
        offset = 0
        for lo, hi in busy:
            if offset + size <= lo:
                break
            offset = max(offset, hi)
        placed.append(Buffer(b.name, b.nbytes, b.first, b.last, offset))
    arena = max((p.offset + _align(max(p.nbytes, 1), alignment) for p in placed), default=0)
    return placed, arena


@dataclass
class MemoryPlan:
    """Where every tensor lives in DRAM. Activations share one arena (offsets from the
    arena's base); constants are laid out back to back in a separate region."""

    activations: dict = field(default_factory=dict)   # name -> Buffer (aliases included)
    aliases: dict = field(default_factory=dict)       # alias name -> buffer it shares
    constants: dict = field(default_factory=dict)     # name -> (offset, nbytes)
    arena_bytes: int = 0
    naive_bytes: int = 0
    constants_bytes: int = 0
    alignment: int = 64

    def offset(self, name: str) -> int:
        if name in self.activations:
            return self.activations[name].offset
        if name in self.constants:
            return self.constants[name][0]
        raise PassError(f"tensor '{name}' has no DRAM placement in this memory plan")

    def report(self) -> str:
        saved = 1 - self.arena_bytes / self.naive_bytes if self.naive_bytes else 0.0
        return (f"activations: planned peak {self.arena_bytes:,} B vs naive "
                f"{self.naive_bytes:,} B ({saved:.0%} saved, {len(self.activations)} tensors, "
                f"{len(self.aliases)} aliased); constants: {self.constants_bytes:,} B in "
                f"{len(self.constants)} tensors; alignment {self.alignment} B")


def plan_memory(graph: Graph, alignment: int = 64) -> MemoryPlan:
    """Liveness over the node order; outputs of alias ops (reshape, flatten, identity) share
    their input's buffer."""
    end = len(graph.nodes)
    root: dict = {}
    first, last, size = {}, {}, {}
    for v in graph.inputs:
        first[v], last[v], size[v] = -1, -1, graph.type_of(v).nbytes
        root[v] = v
    for i, n in enumerate(graph.nodes):
        for v in n.inputs:
            if v in root:
                last[root[v]] = max(last[root[v]], i)
        src = n.inputs[0] if n.inputs else None
        if has_trait(n.op, "alias") and src in root:  # same bytes, same order: no copy
            root[n.output] = root[src]
        else:
            root[n.output] = n.output
            first[n.output], last[n.output] = i, i
            size[n.output] = graph.type_of(n.output).nbytes
    for v in graph.outputs:
        if v in root:
            last[root[v]] = end  # outputs stay until the host reads them
    buffers = [Buffer(v, size[v], first[v], last[v]) for v in first]
    placed, arena = allocate(buffers, alignment)
    plan = MemoryPlan(alignment=alignment, arena_bytes=arena,
                      naive_bytes=sum(_align(max(b.nbytes, 1), alignment) for b in buffers))
    by_name = {b.name: b for b in placed}
    for v, r in root.items():
        plan.activations[v] = by_name[r]
        if r != v:
            plan.aliases[v] = r
    offset = 0
    for v, a in graph.constants.items():
        plan.constants[v] = (offset, a.nbytes)
        offset += _align(a.nbytes, alignment)
    plan.constants_bytes = offset
    return plan


def plan_lowered(lowered, alignment: int = 64, hold_inputs: bool = False) -> MemoryPlan:
    """The same planner over a lowered program's layers (scratch tensors included; aliases
    share their root's buffer): the arena every backend places (compiler.memory_image).
    hold_inputs keeps graph inputs live to the end (a C-like program runs again on the same
    arena and must give the same outputs)."""
    buffers = [Buffer(r, lowered.tensors[r].nbytes, a, b)
               for r, (a, b) in lowered.lifetimes(hold_inputs).items()]
    placed, arena = allocate(buffers, alignment)
    plan = MemoryPlan(alignment=alignment, arena_bytes=arena,
                      naive_bytes=sum(_align(max(b.nbytes, 1), alignment) for b in buffers))
    plan.activations = {b.name: b for b in placed}
    for alias in lowered.aliases:
        root = lowered.root(alias)
        if root in plan.activations:
            plan.activations[alias] = plan.activations[root]
            plan.aliases[alias] = root
    return plan


@register_pass("plan-memory")
class PlanMemory(Pass):
    """Stores a MemoryPlan in graph.meta['memory_plan'] (the graph itself is unchanged)."""

    OPTIONS = {"alignment": 64}

    def run(self, graph: Graph, ctx) -> Graph:
        graph.meta["memory_plan"] = plan_memory(graph, int(self.options["alignment"]))
        return graph
