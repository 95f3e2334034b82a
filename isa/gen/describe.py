"""Human-readable descriptions shared by the generators: timing formulas, units, field types."""

from __future__ import annotations

from isa.spec import FieldSpec, InstructionSpec, IsaSpec


def timing_rule(spec: IsaSpec, name: str) -> str:
    """`name = formula` for a cycle rule, as the spec's [timing] table states it."""
    if name not in spec.timing:
        raise KeyError(f"timing rule '{name}' is not in the spec's [timing]; "
                       f"known: {', '.join(spec.timing)}")
    cycles = spec.timing[name].cycles
    return f"{name} = {cycles} cycle" + ("" if cycles == "1" else "s")


def unit_text(ins: InstructionSpec) -> str:
    return f"named by field '{ins.unit[6:]}'" if ins.unit.startswith("field:") else ins.unit


def type_text(f: FieldSpec) -> str:
    return {"u": "unsigned", "s": "signed"}.get(f.type, f.type)


def range_text(f: FieldSpec) -> str:
    lo, hi = f.legal
    return f"{lo}..{hi}"


def byte_order(spec: IsaSpec) -> str:
    return spec.byte_order
