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


def bits_text(f: FieldSpec) -> str:
    """Where a field is in the word: "91:84", "100", or for a split field each part with the
    value bits it holds, low part first: "91:84 [7:0], 102 [8]"."""
    def span(hi: int, lo: int) -> str:
        return f"{hi}:{lo}" if hi != lo else str(lo)
    if not f.split:
        return span(f.msb, f.lsb)
    out, shift = [], 0
    for hi, lo in f.slices:
        out.append(f"{span(hi, lo)} [{span(shift + hi - lo, shift)}]")
        shift += hi - lo + 1
    return ", ".join(out)


def range_text(f: FieldSpec) -> str:
    lo, hi = f.legal
    return f"{lo}..{hi}"


def byte_order(spec: IsaSpec) -> str:
    return spec.byte_order
