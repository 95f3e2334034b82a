"""Renders rtl/npu_isa.vh: Verilog-2005 localparams and field-extraction macros from the ISA spec."""

from __future__ import annotations

from pathlib import Path

from isa.errors import SpecError
from isa.gen import banner
from isa.gen.describe import bits_text, byte_order, timing_rule, unit_text
from isa.spec import IsaSpec


def _stem(ins, f) -> str:
    return f"{ins.mnemonic}_{f.name}".upper()


def _field_params(ins, f) -> list[tuple[str, int]]:
    """NAME_LSB / NAME_W: the field's first part, its whole self unless split (the bits it
    had in the base version); a split field adds NAME_FULL_W, its whole width, and
    NAME_P<i>_LSB / NAME_P<i>_W for each later part (P1 holds the value bits above P0's)."""
    out = [(f"{_stem(ins, f)}_LSB", f.lsb), (f"{_stem(ins, f)}_W", f.parts[0][1])]
    if f.split:
        out.append((f"{_stem(ins, f)}_FULL_W", f.width))
        for i, (lsb, w) in enumerate(f.parts[1:], 1):
            out += [(f"{_stem(ins, f)}_P{i}_LSB", lsb), (f"{_stem(ins, f)}_P{i}_W", w)]
    return out


def _macros(ins, f) -> list[str]:
    """F_NAME(w): the field's first part, w[msb:lsb]; for a split field also F_NAME_FULL(w),
    its whole value, the concatenation of its parts high first (an rvalue and an lvalue)."""
    hi, lo = f.slices[0]
    out = [f"`define F_{_stem(ins, f)}(w) w[{hi}:{lo}]"]
    if f.split:
        full = ", ".join(f"w[{h}:{l}]" for h, l in reversed(f.slices))
        out.append(f"`define F_{_stem(ins, f)}_FULL(w) {{{full}}}")
    return out


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
            out += [(("integer", n, str(v))) for n, v in _field_params(ins, f)]
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
             f"// Split fields (v{spec.version} widened them, RISC-V style): F_X(w), X_LSB and X_W are a",
             f"// field's first part, its low bits, exactly the v{spec.base_version or spec.version} field; F_X_FULL(w)",
             "// is its whole value (the parts concatenated, high first; also an lvalue), X_FULL_W",
             "// its width, X_P<i>_LSB/X_P<i>_W its later parts. A unit built for base-version",
             "// ranges (buffers of at most 2^X_W elements, X_W-bit counts: the rtl/ units, see",
             "// npusim.hw.rtl_params.rtl_target) reads F_X: on its Targets the later parts are 0.",
             "", "`ifndef NPU_ISA_VH", "`define NPU_ISA_VH",
             f"`define F_OPCODE(w) w[{spec.opcode_lsb + spec.opcode_width - 1}:{spec.opcode_lsb}]"]
    for ins in spec.instructions:
        for f in ins.fields:
            lines += _macros(ins, f)
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
            lines.append(f"//   {f.name:<10} [{bits_text(f)}] {f.type}: {f.doc}")
        emit(f"OP_{ins.mnemonic.upper()}")
        for f in ins.fields:
            emit(*(n for n, _ in _field_params(ins, f)))
    for enum in spec.enums.values():
        lines += ["", f"// enum {enum.name}: {enum.doc}"]
        emit(*(f"{enum.name}_{k}".upper() for k in enum.values))
    lines += ["", "// config register reset values"]
    emit(*(f"REG_{r.name.upper()}_RESET" for r in spec.registers.values()))
    assert emitted == set(params)  # every declared name placed exactly once
    return "\n".join(lines) + "\n"
