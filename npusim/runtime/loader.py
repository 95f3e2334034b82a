"""Turns what a user hands the device (Program, .bin/.s path, Instruction lists) into one form."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from isa.codec import Instruction
from isa.target import Target, TargetError

from npusim.runtime.buffers import TensorSlot
from npusim.runtime.errors import ProgramError


@dataclass(frozen=True)
class LoadedProgram:
    """A program checked for a device: what simulate() receives, its tensors and its target."""

    program: object  # isa.asm.Program, or list[list[Instruction]]
    source: str
    target: Target | None = None
    tensors: dict = field(default_factory=dict)  # name -> TensorSlot

    def slot(self, name: str) -> TensorSlot:
        try:
            return self.tensors[name]
        except KeyError:
            declared = ", ".join(self.tensors) or "none (the program has no .tensor lines)"
            raise ProgramError(f"{self.source} declares no tensor '{name}'; declared: "
                               f"{declared}") from None


def read_program(path, target=None):
    """A .s file is assembled on the fly (checked against `target` if given, which must agree
    with its .target line); anything else must be a program container (.bin)."""
    from isa.asm import AsmError, ContainerError, Program, assemble_file
    path = Path(path)
    try:
        return assemble_file(path, target=target) if path.suffix == ".s" else Program.load(path)
    except (AsmError, ContainerError) as e:
        raise ProgramError(str(e)) from e
    except OSError as e:
        raise ProgramError(f"cannot read program {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ProgramError(f"cannot read program {path}: not UTF-8 assembly text (byte "
                           f"{e.start}); program containers must not end in .s") from None


def load(program) -> LoadedProgram:
    if isinstance(program, LoadedProgram):
        return program
    if isinstance(program, (str, Path)):
        program = read_program(program)
    if isinstance(program, list):
        if program and all(isinstance(i, Instruction) for i in program):
            program = [program]
        if not all(isinstance(c, list) and all(isinstance(i, Instruction) for i in c)
                   for c in program):
            raise ProgramError("a program given as a list must hold isa Instructions "
                               "(one core) or one list of them per core")
        return LoadedProgram(program, f"<{sum(map(len, program))} instructions>")
    if not hasattr(program, "cores") or not hasattr(program, "tensors"):
        raise ProgramError(f"cannot load a {type(program).__name__} as a program; pass an "
                           "isa.asm.Program, a .bin/.s path or a list of Instructions")
    source = program.source or "<program>"
    target = None
    if program.target:
        try:
            target = Target.create(program.target)
        except TargetError as e:
            raise ProgramError(f"{source}: its target '{program.target}' is invalid: {e}") from None
    tensors = {name: TensorSlot(name, d.dram, tuple(d.shape), np.dtype(d.dtype))
               for name, d in program.tensors.items()}
    return LoadedProgram(program, source, target, tensors)
