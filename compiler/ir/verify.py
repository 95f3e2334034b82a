"""Graph verifier: dangling edges, duplicate definitions, cycles, unknown ops, type mismatches."""

from __future__ import annotations

from ..errors import CompilerError, GraphError
from .graph import Graph
from .types import TensorType

MAX_REPORTED = 10


def verify(graph: Graph, check_types: bool = True) -> None:
    """Raise GraphError listing every problem found (up to 10), or return None."""
    from ..ops import get_op

    problems = []
    defined = {}
    for v in graph.inputs:
        defined.setdefault(v, []).append("graph input")
    for v in graph.constants:
        defined.setdefault(v, []).append("constant")
    for n in graph.nodes:
        defined.setdefault(n.output, []).append(f"node '{n.name}'")
    for v, where in defined.items():
        if len(where) > 1:
            problems.append(f"value '{v}' is defined {len(where)} times ({', '.join(where)})")

    problems += _check_order(graph, defined)
    for v in graph.outputs:
        if v not in defined:
            problems.append(f"graph output '{v}' is not produced by any node, input or constant")

    if check_types and not problems:
        for v, array in graph.constants.items():
            if graph.types.get(v) != TensorType.of(array):
                problems.append(f"constant '{v}' is recorded as {graph.types.get(v)} but holds "
                                f"{TensorType.of(array)}")
        for v in graph.inputs:
            if v not in graph.types:
                problems.append(f"graph input '{v}' has no type")
        for n in graph.nodes:
            where = f"node '{n.name}' ({n.op})"
            try:
                op = get_op(n.op)
                attrs = op.normalize_attrs(n.attrs, where)
                got = op.infer_type([graph.types[v] for v in n.inputs], attrs, where)
            except KeyError as e:
                problems.append(f"{where}: input {e} has no type")
                continue
            except CompilerError as e:
                problems.append(str(e))
                continue
            have = graph.types.get(n.output)
            if have is not None and have != got:
                problems.append(f"{where}: output '{n.output}' is recorded as {have}, but its "
                                f"inputs give {got}; run InferTypes after rewriting")
    if problems:
        more = len(problems) - MAX_REPORTED
        text = "\n  ".join(problems[:MAX_REPORTED]) + (f"\n  ... and {more} more" if more > 0
                                                        else "")
        raise GraphError(f"graph '{graph.name}' is invalid:\n  {text}")


def _check_order(graph: Graph, defined: dict) -> list:
    """Dangling inputs, and reads of values produced later (a cycle or a bad order)."""
    problems, seen = [], set(graph.inputs) | set(graph.constants)
    producer = {n.output: n for n in graph.nodes}
    late = []
    for n in graph.nodes:
        for v in n.inputs:
            if v not in defined:
                problems.append(f"node '{n.name}' ({n.op}) reads '{v}', which nothing defines "
                                "(dangling edge)")
            elif v not in seen:
                late.append((n, v))
        seen.add(n.output)
    if late:
        try:
            g = graph.copy()
            g.topo_sort()
        except GraphError as e:
            problems.append(str(e))
        else:
            n, v = late[0]
            problems.append(f"node '{n.name}' reads '{v}' before node "
                            f"'{producer[v].name}' produces it; call Graph.topo_sort()")
    return problems
