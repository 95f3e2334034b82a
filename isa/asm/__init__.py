"""Assembly text <-> instruction words: assembler, disassembler and the program container."""

from isa.asm.assembler import assemble, assemble_file
from isa.asm.disassembler import Annotations, disassemble, format_instruction
from isa.asm.errors import AsmError, ContainerError
from isa.asm.program import Program, TensorDecl

__all__ = ["Annotations", "assemble", "assemble_file", "disassemble", "format_instruction",
           "Program", "TensorDecl", "AsmError", "ContainerError"]
