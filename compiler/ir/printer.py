"""Relay-like text form of a graph: one `%value = op(args, attrs) : type` line per node."""

from __future__ import annotations

from ..errors import OpError


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


def _attrs(node) -> list:
    """Attributes that differ from the op's defaults (all of them for unknown ops)."""
    from ..ops import get_op
    try:
        defaults = {a.name: a.default for a in get_op(node.op).attrs}
    except OpError:
        defaults = {}
    return [f"{k}={_fmt(v)}" for k, v in node.attrs.items()
            if k not in defaults or defaults[k] != v]


def format_graph(graph) -> str:
    def ref(v):
        return f"@{v}" if v in graph.constants else f"%{v}"

    def ty(v):
        t = graph.types.get(v)
        return str(t) if t is not None else "?"

    params = ", ".join(f"%{v}: {ty(v)}" for v in graph.inputs)
    rets = ", ".join(ty(v) for v in graph.outputs)
    lines = [f"def @{graph.name}({params}) -> ({rets}) {{"]
    for n in graph.nodes:
        args = [ref(v) for v in n.inputs] + _attrs(n)
        lines.append(f"  %{n.output} = {n.op}({', '.join(args)}) : {ty(n.output)}")
    lines.append(f"  return {', '.join(ref(v) for v in graph.outputs)}")
    lines.append("}")
    if graph.constants:
        count = sum(a.size for a in graph.constants.values())
        nbytes = sum(a.nbytes for a in graph.constants.values())
        dtypes = sorted({str(a.dtype) for a in graph.constants.values()})
        lines.append(f"/* {len(graph.constants)} constants, {count:,} elements "
                     f"({nbytes / 2**20:.2f} MiB; {', '.join(dtypes)}) */")
    return "\n".join(lines)

