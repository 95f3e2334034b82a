"""Prints a Program as canonical assembly that re-assembles to the identical container bytes."""

from __future__ import annotations

from isa.asm.program import Program
from isa.codec import Instruction
from isa.spec import FieldSpec, load_spec

INDENT = "    "
COMMENT_COLUMN = 64  # where the `; [index]` comments line up


def _is_address(f: FieldSpec) -> bool:
    return f.buffer is not None or f.target_max == "dram_addr"


def format_instruction(instr: Instruction) -> str:
    """One instruction in shorthand: `gemm ibuf[0x0], wbuf[0x0], abuf[0x0], m=16, k=16, n=16`.

    Buffer selectors fold into their address (`sram=abuf[0x10]`), fixed-buffer addresses are
    bare (`ibuf[0x40]`), enums print by name, and plain numeric fields that are 0 are left out
    (required fields are never 0).
    """
    spec = load_spec()
    buffers = spec.enums["buf"]
    selectors = {f.buffer for f in instr.spec.fields if f.buffer and f.buffer not in
                 buffers.values}
    parts = []
    for f in instr.spec.fields:
        value = instr.fields[f.name]
        if f.name in selectors:
            continue  # printed inside its address operand
        if f.buffer in buffers.values:
            parts.append(f"{f.buffer}[{value:#x}]")
        elif f.buffer:
            parts.append(f"{f.name}={buffers.names[instr.fields[f.buffer]]}[{value:#x}]")
        elif f.enum:
            parts.append(f"{f.name}={spec.enums[f.enum].names[value]}")
        elif value == 0 and not f.target_max:
            continue  # resource fields (chan, sem, dram) always print: they say where
        elif _is_address(f):
            parts.append(f"{f.name}={value:#x}")
        else:
            parts.append(f"{f.name}={value}")
    return f"{instr.mnemonic} {', '.join(parts)}" if parts else instr.mnemonic


def disassemble(program: Program | bytes, indices: bool = True) -> str:
    """Canonical assembly of a Program (or container bytes); `indices` adds `; [i]` comments."""
    if isinstance(program, (bytes, bytearray)):
        program = Program.from_bytes(bytes(program))
    spec = load_spec()
    n = program.num_instructions
    lines = [f"; npusim disassembly: ISA {spec.name} {spec.version}, target "
             f"{program.target or '(none)'}, {program.num_cores} core"
             f"{'s' if program.num_cores != 1 else ''}, {n} instruction{'s' if n != 1 else ''}"]
    if program.source is not None:
        lines.append(f'.file "{program.source}"')
    if program.target is not None:
        lines.append(f".target {program.target}")
    for name, t in program.tensors.items():
        shape = "x".join(map(str, t.shape))
        lines.append(f".tensor {name}, dram={t.dram:#x}, shape={shape}, dtype={t.dtype}")
    for core in range(program.num_cores):
        lines.append(f"\n.core {core}")
        by_index: dict[int, list[str]] = {}
        labels = program.labels.get(core, {})
        for name, index in sorted(labels.items(), key=lambda kv: (kv[1], kv[0])):
            by_index.setdefault(index, []).append(name)
        for i, instr in enumerate(program.instructions(core)):
            lines += [f"{name}:" for name in by_index.pop(i, [])]
            text = INDENT + format_instruction(instr)
            if indices:
                text = f"{text.ljust(COMMENT_COLUMN - 1)} ; [{i}]"
            lines.append(text)
        # labels past the last instruction (e.g. `end:`), in index order
        for index in sorted(by_index):
            lines += [f"{name}:" for name in by_index[index]]
    return "\n".join(lines) + "\n"
