"""Human-readable descriptions shared by the generators: timing formulas, units, field types."""

from __future__ import annotations

import importlib
import inspect

from isa.spec import FieldSpec, InstructionSpec, IsaSpec


def timing_rule(spec: IsaSpec, name: str) -> str:
    """`name = formula` for a cycle rule, read from the timing module the spec names.

    The formula is the rule docstring's text before its first colon (e.g. "k + m + R + C - 1");
    rules without parameters are constants, so they are called."""
    rules = importlib.import_module(spec.timing_module).RULES
    if name not in rules:
        raise KeyError(f"timing rule '{name}' is not in {spec.timing_module}.RULES; "
                       f"known: {', '.join(rules)}")
    fn = rules[name]
    if not inspect.signature(fn).parameters:
        n = fn()
        return f"{name} = {n} cycle" + ("" if n == 1 else "s")
    text = " ".join(inspect.getdoc(fn).split("\n\n")[0].split())
    return f"{name} = {text.split(':', 1)[0].strip()}"


def unit_text(ins: InstructionSpec) -> str:
    return f"named by field '{ins.unit[6:]}'" if ins.unit.startswith("field:") else ins.unit


def type_text(f: FieldSpec) -> str:
    return {"u": "unsigned", "s": "signed"}.get(f.type, f.type)


def range_text(f: FieldSpec) -> str:
    lo, hi = f.legal
    return f"{lo}..{hi}"


def byte_order(spec: IsaSpec) -> str:
    # IsaSpec does not carry [isa].byte_order (the codec is little-endian only); read the file.
    import tomllib
    return tomllib.loads(spec.path.read_text())["isa"].get("byte_order", "little")
