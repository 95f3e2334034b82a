"""Renders rtl/npu_isa.vh: Verilog-2005 localparams and field-extraction macros from the ISA spec."""

from __future__ import annotations

from pathlib import Path

from isa.errors import SpecError
from isa.gen import banner
from isa.gen.describe import byte_order, timing_rule, unit_text
from isa.spec import IsaSpec


def _params(spec: IsaSpec) -> list[tuple[str, str, str]]:
    """(declaration type, NAME, value) of every localparam, in file order."""
    ow = spec.opcode_width
    major, minor = spec.version_tuple
    out = [("integer", "ISA_WORD_BITS", str(spec.word_bits)),
           ("integer", "ISA_VERSION_MAJOR", str(major)),
           ("integer", "ISA_VERSION_MINOR", str(minor)),
           ("integer", "OPCODE_LSB", str(spec.opcode_lsb)),
           ("integer", "OPCODE_W", str(ow))]
    for ins in spec.instructions:
        out.append((f"[{ow - 1}:0]", f"OP_{ins.mnemonic.upper()}", f"{ow}'h{ins.opcode:02X}"))
    for ins in spec.instructions:
        for f in ins.fields:
            stem = f"{ins.mnemonic}_{f.name}".upper()
            out += [("integer", f"{stem}_LSB", str(f.lsb)), ("integer", f"{stem}_W", str(f.width))]
    for enum in spec.enums.values():
        out += [("integer", f"{enum.name}_{k}".upper(), str(v)) for k, v in enum.values.items()]
    out += [("integer", f"REG_{r.name.upper()}_RESET", str(r.reset))
            for r in spec.registers.values()]
    names = [n for _, n, _ in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:  # e.g. a register named x_reset next to x: the header would not compile
        raise SpecError(f"Verilog names collide: {', '.join(dup)}; rename the spec entries")
    return out


def render(spec: IsaSpec, root: Path | None = None) -> str:
    lines = [f"// {banner(spec)}",
             f"// {spec.name.upper()} ISA v{spec.version}: {spec.word_bits}-bit {byte_order(spec)}-endian "
             "words; bits no field covers are reserved and must be zero.",
             "// `include this INSIDE each module body: the localparams below are declared in every",
             "// module that includes it; the macros are defined once per compilation unit.",
             "", "`ifndef NPU_ISA_VH", "`define NPU_ISA_VH",
             f"`define F_OPCODE(w) w[{spec.opcode_lsb + spec.opcode_width - 1}:{spec.opcode_lsb}]"]
    for ins in spec.instructions:
        for f in ins.fields:
            lines.append(f"`define F_{ins.mnemonic.upper()}_{f.name.upper()}(w) w[{f.msb}:{f.lsb}]")
    lines += ["`endif", ""]
    params = {n: (t, v) for t, n, v in _params(spec)}
    emitted: set[str] = set()

    def emit(*names: str) -> None:
        for n in names:
            t, v = params[n]
            lines.append(f"localparam {t} {n} = {v};")
            emitted.add(n)

    emit("ISA_WORD_BITS", "ISA_VERSION_MAJOR", "ISA_VERSION_MINOR", "OPCODE_LSB", "OPCODE_W")
    for ins in spec.instructions:
        lines += ["", f"// ---- {ins.mnemonic} ({ins.cls}; unit: {unit_text(ins)})",
                  f"// semantics: {ins.semantics}",
                  f"// timing: {timing_rule(spec, ins.timing)}"]
        for f in ins.fields:
            lines.append(f"//   {f.name:<10} [{f.msb}:{f.lsb}] {f.type}: {f.doc}")
        emit(f"OP_{ins.mnemonic.upper()}")
        for f in ins.fields:
            stem = f"{ins.mnemonic}_{f.name}".upper()
            emit(f"{stem}_LSB", f"{stem}_W")
    for enum in spec.enums.values():
        lines += ["", f"// enum {enum.name}: {enum.doc}"]
        emit(*(f"{enum.name}_{k}".upper() for k in enum.values))
    lines += ["", "// config register reset values"]
    emit(*(f"REG_{r.name.upper()}_RESET" for r in spec.registers.values()))
    assert emitted == set(params)  # every declared name placed exactly once
    return "\n".join(lines) + "\n"
