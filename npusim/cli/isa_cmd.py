"""`npusim isa [MNEMONIC] [--json]`: the ISA reference in the terminal, or the spec as JSON."""

from __future__ import annotations

import difflib
import json

from isa.gen.bitfield import picture
from isa.gen.describe import bits_text, byte_order, range_text, timing_rule, type_text
from isa.gen.spec_json import instruction_dict, spec_dict
from isa.spec import InstructionSpec, IsaSpec, load_spec
from npusim.cli.errors import fail


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "isa", help="print the ISA reference (or one instruction, or the spec as JSON)",
        description="Print the NPU instruction set: one line per instruction, or one "
                    "instruction's fields and bit layout.")
    p.add_argument("mnemonic", nargs="?", metavar="MNEMONIC", help="e.g. gemm, load, vrequant")
    p.add_argument("--json", action="store_true",
                   help="print the spec (or the instruction) as JSON, a stable contract")
    p.set_defaults(func=run)


def _unit(ins: InstructionSpec) -> str:
    return f"<{ins.unit[6:]}>" if ins.unit.startswith("field:") else ins.unit


def summary(spec: IsaSpec) -> str:
    width = max(len(i.mnemonic) for i in spec.instructions)
    lines = [f"{spec.name.upper()} ISA v{spec.version}: {spec.word_bits}-bit "
             f"{byte_order(spec)}-endian words, opcode bits "
             f"[{spec.opcode_lsb + spec.opcode_width - 1}:{spec.opcode_lsb}], "
             f"{len(spec.instructions)} instructions (<field>: the unit that field names)"]
    for cls in spec.classes():
        lines += ["", cls]
        lines += [f"  {i.mnemonic:<{width}}  {i.opcode:#04x}  {_unit(i):<8}  {i.semantics}"
                  for i in spec.instructions if i.cls == cls]
    lines += ["", "enums"]
    lines += [f"  {e.name}: " + " ".join(f"{k}={v}" for k, v in e.values.items())
              for e in spec.enums.values()]
    return "\n".join(lines)


def detail(spec: IsaSpec, ins: InstructionSpec) -> str:
    unit = (f"named by field '{ins.unit[6:]}'" if ins.unit.startswith("field:") else ins.unit)
    lines = [f"{ins.mnemonic}  opcode {ins.opcode:#04x}  class {ins.cls}  unit {unit}"
             + (f"  format {ins.format}" if ins.format else ""),
             f"  {ins.semantics}", f"  timing: {timing_rule(spec, ins.timing)}", ""]
    rows = [("bits", "field", "type", "range", "target limit", "meaning")]
    rows += [(bits_text(f), f.name, type_text(f),
              range_text(f), f.target_max or "", f.doc) for f in reversed(ins.fields)]
    if ins.fields:
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
        lines += ["  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1]
                  for r in rows]
    else:
        lines.append("  no operand fields")
    lines += [""] + picture(ins, spec.word_bits, (spec.opcode_lsb, spec.opcode_width))
    return "\n".join(lines)


def run(args) -> int:
    spec = load_spec()
    ins = None
    if args.mnemonic is not None:
        ins = spec.by_mnemonic.get(args.mnemonic.lower())
        if ins is None:
            close = difflib.get_close_matches(args.mnemonic.lower(), spec.by_mnemonic, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            return fail(f"unknown instruction '{args.mnemonic}'; {hint}"
                        f"known: {', '.join(spec.by_mnemonic)}")
    if args.json:
        print(json.dumps(instruction_dict(ins) if ins else spec_dict(spec), indent=2))
    else:
        print(detail(spec, ins) if ins else summary(spec))
    return 0
