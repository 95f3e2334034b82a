"""Prints a Program as canonical assembly that re-assembles to the identical container bytes."""

from __future__ import annotations

from dataclasses import dataclass, field

from isa.asm.program import Program
from isa.codec import Instruction
from isa.spec import FieldSpec, InstructionSpec, load_spec

INDENT = "    "
COMMENT_COLUMN = 64  # where the `; [index]` comments line up


@dataclass
class Annotations:
    """Comments printed with a program, for people (a compiler's notes on what it emitted);
    they never change what the text assembles to. Indices count each core's instructions."""

    head: list = field(default_factory=list)       # lines after the first, before .file
    tensors: dict = field(default_factory=dict)    # tensor name -> its end-of-line comment
    notes: dict = field(default_factory=dict)      # core -> {index: [lines before it]}
    comments: dict = field(default_factory=dict)   # core -> {index: end-of-line comment}


def _is_address(f: FieldSpec) -> bool:
    return f.buffer is not None or f.target_max == "dram_addr"


_PLANS: dict = {}  # id(InstructionSpec) -> (spec entry, plan): the format of each field, once


def _plan(ins: InstructionSpec) -> tuple:
    """(field name, how, selector or enum names) per printed field; see format_instruction."""
    hit = _PLANS.get(id(ins))
    if hit is not None and hit[0] is ins:
        return hit[1]
    spec = load_spec()
    buffers = spec.enums["buf"]
    selectors = {f.buffer for f in ins.fields if f.buffer and f.buffer not in buffers.values}
    plan = []
    for f in ins.fields:
        if f.name in selectors:
            continue  # printed inside its address operand
        if f.buffer in buffers.values:
            plan.append((f.name, "fixed", f.buffer))
        elif f.buffer:
            plan.append((f.name, "selected", (f.buffer, buffers.names)))
        elif f.enum:
            plan.append((f.name, "enum", spec.enums[f.enum].names))
        elif _is_address(f):
            plan.append((f.name, "hex" if f.target_max else "hex0", None))
        else:
            plan.append((f.name, "int" if f.target_max else "int0", None))
    plan = tuple(plan)
    _PLANS[id(ins)] = (ins, plan)
    return plan


def format_instruction(instr: Instruction) -> str:
    """One instruction in shorthand: `gemm ibuf[0x0], wbuf[0x0], abuf[0x0], m=16, k=16, n=16`.

    Buffer selectors fold into their address (`sram=abuf[0x10]`), fixed-buffer addresses are
    bare (`ibuf[0x40]`), enums print by name, and plain numeric fields that are 0 are left out
    (required fields are never 0; resource fields such as chan, sem, dram always print: they
    say where).
    """
    values = instr.fields
    parts = []
    for name, how, extra in _plan(instr.spec):
        value = values[name]
        if how == "fixed":
            parts.append(f"{extra}[{value:#x}]")
        elif how == "selected":
            parts.append(f"{name}={extra[1][values[extra[0]]]}[{value:#x}]")
        elif how == "enum":
            parts.append(f"{name}={extra[value]}")
        elif value == 0 and how[-1] == "0":
            continue
        elif how[0] == "h":
            parts.append(f"{name}={value:#x}")
        else:
            parts.append(f"{name}={value}")
    return f"{instr.mnemonic} {', '.join(parts)}" if parts else instr.mnemonic


def _one_line(text: str) -> str:
    return " ".join(str(text).splitlines())


def disassemble(program: Program | bytes, indices: bool = True,
                annotations: Annotations | None = None) -> str:
    """Canonical assembly of a Program (or container bytes); `indices` adds `; [i]` comments,
    `annotations` a compiler's comments (see Annotations)."""
    if isinstance(program, (bytes, bytearray)):
        program = Program.from_bytes(bytes(program))
    notes = annotations or Annotations()
    spec = load_spec()
    n = program.num_instructions
    lines = [f"; npusim disassembly: ISA {spec.name} {spec.version}, target "
             f"{program.target or '(none)'}, {program.num_cores} core"
             f"{'s' if program.num_cores != 1 else ''}, {n} instruction{'s' if n != 1 else ''}"]
    lines += [f"; {_one_line(t)}" for t in notes.head]
    if program.source is not None:
        lines.append(f'.file "{program.source}"')
    if program.target is not None:
        lines.append(f".target {program.target}")
    for name, t in program.tensors.items():
        shape = "x".join(map(str, t.shape))
        text = f".tensor {name}, dram={t.dram:#x}, shape={shape}, dtype={t.dtype}"
        if name in notes.tensors:
            text += f"   ; {_one_line(notes.tensors[name])}"
        lines.append(text)
    for core in range(program.num_cores):
        lines.append(f"\n.core {core}")
        by_index: dict[int, list[str]] = {}
        labels = program.labels.get(core, {})
        for name, index in sorted(labels.items(), key=lambda kv: (kv[1], kv[0])):
            by_index.setdefault(index, []).append(name)
        before = notes.notes.get(core, {})
        after = notes.comments.get(core, {})
        # a program repeats a few instruction objects thousands of times (a compiled one
        # shares them, a decoded one too): each is formatted once (alive for this call)
        shown: dict = {}
        for i, instr in enumerate(program.instructions(core)):
            if i in before:
                lines += [f"; {_one_line(t)}" for t in before[i]]
            if i in by_index:
                lines += [f"{name}:" for name in by_index.pop(i)]
            text = shown.get(id(instr))
            if text is None:
                text = shown[id(instr)] = INDENT + format_instruction(instr)
            if i in after:
                text += f"  ; {_one_line(after[i])}"
            if indices:
                text = f"{text.ljust(COMMENT_COLUMN - 1)} ; [{i}]"
            lines.append(text)
        # labels past the last instruction (e.g. `end:`), in index order
        for index in sorted(by_index):
            lines += [f"{name}:" for name in by_index[index]]
    return "\n".join(lines) + "\n"
