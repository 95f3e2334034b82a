"""The NPU ISA: the spec (npu_isa.toml) and everything derived from it; imports nothing of ours."""

from isa.codec import (Instruction, decode, decode_program, decode_word, encode,
                       encode_fields, encode_word, instruction, make_instruction)
from isa.errors import DecodeError, EncodingError, IsaError, SpecError
from isa.spec import IsaSpec, load_spec

__all__ = ["Instruction", "IsaSpec", "IsaError", "SpecError", "EncodingError", "DecodeError",
           "load_spec", "encode", "encode_fields", "decode", "decode_word", "decode_program",
           "encode_word", "instruction", "make_instruction"]
