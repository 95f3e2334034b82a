"""Pass infrastructure: a Pass base with typed options, a name registry and the PassManager."""

from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import PassError, did_you_mean
from ..ir.graph import Graph

_PASSES: dict = {}


@dataclass
class PassContext:
    """What passes may read besides the graph: calibration data, target, settings, a log."""

    calib_inputs: Any = None      # list of {input name: array}; None -> generated inputs
    num_calib: int = 8            # generated calibration samples when calib_inputs is None
    seed: int = 0
    target: Any = None
    verify: bool = True
    log: list = field(default_factory=list)  # (pass, seconds, node count) per pass run


class Pass:
    """A graph-to-graph transformation. Subclasses set OPTIONS = {name: default}."""

    name = "pass"
    OPTIONS: dict = {}
    # True: the pass waits itself for any pending constant it reads (compiler.ir.pending);
    # False: the PassManager runs it once every constant is filled
    reads_pending = False

    def __init__(self, **options):
        for key in options:
            if key not in self.OPTIONS:
                known = did_you_mean(key, self.OPTIONS) if self.OPTIONS else "it takes none"
                raise PassError(f"pass '{self.name}' has no option '{key}'; {known}")
        self.options = {**self.OPTIONS, **options}

    def run(self, graph: Graph, ctx: PassContext) -> Graph:
        raise NotImplementedError

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.name}({opts})" if opts else self.name


def register_pass(name: str):
    def deco(cls):
        if name in _PASSES:
            raise PassError(f"pass '{name}' is registered twice")
        cls.name = name
        _PASSES[name] = cls
        return cls
    return deco


def _load_all() -> None:
    from . import (calibrate, const_fold, fold_bn, fuse, infer, layout, memory_plan,  # noqa
                   quantize, simplify)


def get_pass(name: str, **options) -> Pass:
    _load_all()
    if name not in _PASSES:
        raise PassError(f"unknown pass '{name}'; {did_you_mean(name, _PASSES)}")
    return _PASSES[name](**options)


def list_passes() -> list:
    _load_all()
    return sorted(_PASSES)


_SPEC = re.compile(r"\s*([\w-]+)\s*(?:\((.*?)\))?\s*(?:,|$)")


def _parse_value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return {"true": True, "false": False}.get(text.lower(), text)


class PassManager:
    """An ordered, printable pipeline; re-infers types and verifies after every pass."""

    def __init__(self, passes, verify: bool = True):
        self.passes = [get_pass(p) if isinstance(p, str) else p for p in passes]
        self.verify = verify

    @classmethod
    def from_string(cls, text: str) -> "PassManager":
        """'simplify, fold-bn, fuse(residual=false), plan-memory(align=64)'."""
        passes, pos = [], 0
        text = text.strip()
        while pos < len(text):
            m = _SPEC.match(text, pos)
            if not m or m.end() == pos:
                raise PassError(f"cannot parse pass pipeline at column {pos + 1}: "
                                f"'{text[pos:]}'; expected name or name(key=value, ...)")
            opts = {}
            for kv in filter(None, (s.strip() for s in (m.group(2) or "").split(","))):
                if "=" not in kv:
                    raise PassError(f"pass option '{kv}' of '{m.group(1)}' needs key=value")
                k, v = kv.split("=", 1)
                opts[k.strip()] = _parse_value(v.strip())
            passes.append(get_pass(m.group(1), **opts))
            pos = m.end()
        return cls(passes)

    def run(self, graph: Graph, ctx: PassContext | None = None) -> Graph:
        from ..ir.verify import verify
        from .infer import infer_types
        ctx = ctx or PassContext()
        pending = getattr(graph, "pending", None)  # constants still being filled
        g = infer_types(graph.copy())
        for p in self.passes:
            if pending is not None and not p.reads_pending:
                pending = _filled(pending, graph, g)
            start = time.perf_counter()
            g = infer_types(p.run(g, ctx))
            if pending is not None:  # (a pass may hand back a graph it built anew)
                g.pending = pending
            if self.verify and ctx.verify:
                verify(g)
            ctx.log.append((repr(p), time.perf_counter() - start, len(g.nodes)))
        if pending is not None:
            _filled(pending, graph, g)
        return g

    def __iter__(self):
        return iter(self.passes)

    def __len__(self) -> int:
        return len(self.passes)

    def __str__(self) -> str:
        return " -> ".join(repr(p) for p in self.passes)

    def __repr__(self) -> str:
        return f"PassManager({self})"


def _filled(pending, *graphs) -> None:
    """Wait until every pending constant is filled (raising a filling job's error), then
    drop the graphs' PendingConstants; None."""
    pending.wait_all()
    for g in graphs:
        if getattr(g, "pending", None) is not None:
            g.pending = None
