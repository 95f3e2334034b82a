"""Encodes and decodes 128-bit instruction words, driven entirely by the ISA spec."""

from __future__ import annotations

from dataclasses import dataclass

from isa.errors import DecodeError, EncodingError
from isa.spec import FieldSpec, InstructionSpec, IsaSpec, load_spec


@dataclass(frozen=True)
class Instruction:
    """A decoded instruction: its spec entry and its field values (enums as ints)."""

    spec: InstructionSpec
    fields: dict

    @property
    def mnemonic(self) -> str:
        return self.spec.mnemonic

    def __getitem__(self, name: str) -> int:
        return self.fields[name]

    def __repr__(self) -> str:
        args = " ".join(f"{k}={v}" for k, v in self.fields.items())
        return f"<{self.mnemonic} {args}>" if args else f"<{self.mnemonic}>"

    def __hash__(self) -> int:  # fields is a dict; hash by content
        return hash((self.spec.opcode, tuple(sorted(self.fields.items()))))


def _check_value(ins: InstructionSpec, f: FieldSpec, value: int, spec: IsaSpec) -> None:
    lo, hi = f.legal
    if not lo <= value <= hi:
        raise EncodingError(f"{ins.mnemonic}: field '{f.name}' value {value} out of range "
                            f"{lo}..{hi} ({f.doc})")
    if f.enum and value not in spec.enums[f.enum].names:
        known = ", ".join(spec.enums[f.enum].values)
        raise EncodingError(f"{ins.mnemonic}: field '{f.name}' value {value} is not a legal "
                            f"{f.enum}; known: {known}")


def enum_value(spec: IsaSpec, f: FieldSpec, value) -> int:
    """Accept an enum field's value by name ('abuf') or number."""
    if isinstance(value, str):
        values = spec.enums[f.enum].values
        if value not in values:
            import difflib
            close = difflib.get_close_matches(value, values, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise EncodingError(f"field '{f.name}': unknown {f.enum} '{value}'{hint} "
                                f"known: {', '.join(values)}")
        return values[value]
    return int(value)


def encode_fields(mnemonic: str, spec: IsaSpec | None = None, **values) -> int:
    """Encode one instruction to an int word. Omitted fields are zero (checked against range)."""
    spec = spec or load_spec()
    ins = spec.by_mnemonic.get(mnemonic)
    if ins is None:
        import difflib
        close = difflib.get_close_matches(mnemonic, spec.by_mnemonic, n=1)
        hint = f" did you mean '{close[0]}'?" if close else ""
        raise EncodingError(f"unknown mnemonic '{mnemonic}';{hint} known: "
                            f"{', '.join(spec.by_mnemonic)}")
    unknown = set(values) - set(ins.field_map)
    if unknown:
        raise EncodingError(f"{mnemonic}: unknown field(s) {', '.join(sorted(unknown))}; "
                            f"fields are: {', '.join(ins.field_map) or '(none)'}")
    word = ins.opcode << spec.opcode_lsb
    for f in ins.fields:
        value = values.get(f.name, 0)
        value = enum_value(spec, f, value) if f.enum else int(value)
        _check_value(ins, f, value, spec)
        word |= (value & f.mask) << f.lsb
    return word


def encode(instr: Instruction, spec: IsaSpec | None = None) -> bytes:
    """Encode a decoded Instruction back to its little-endian bytes."""
    spec = spec or load_spec()
    return encode_fields(instr.mnemonic, spec, **instr.fields).to_bytes(spec.word_bytes, "little")


def instruction(mnemonic: str, *, spec: IsaSpec | None = None, **values) -> Instruction:
    """Build (and validate) an Instruction from field values; enum values may be names.
    `spec`: the ISA spec it belongs to (default isa/npu_isa.toml; see load_spec(path))."""
    return decode_word(encode_fields(mnemonic, spec, **values), spec)


def decode_word(word: int, spec: IsaSpec | None = None) -> Instruction:
    """Decode an int word; raise DecodeError for unknown opcodes, reserved bits, bad values."""
    spec = spec or load_spec()
    opcode = (word >> spec.opcode_lsb) & ((1 << spec.opcode_width) - 1)
    ins = spec.by_opcode.get(opcode)
    if ins is None:
        raise DecodeError(f"illegal instruction: unknown opcode {opcode:#04x} in word {word:#034x}")
    if word & ins.reserved_mask:
        raise DecodeError(f"illegal instruction: {ins.mnemonic} word {word:#034x} has reserved "
                          f"bits set (mask {word & ins.reserved_mask:#x}); they must be zero")
    fields = {}
    for f in ins.fields:
        value = (word >> f.lsb) & f.mask
        if f.signed and value >> (f.width - 1):
            value -= 1 << f.width
        try:
            _check_value(ins, f, value, spec)
        except EncodingError as e:
            raise DecodeError(f"illegal instruction: {e}") from None
        fields[f.name] = value
    return Instruction(ins, fields)


def decode(data: bytes, spec: IsaSpec | None = None) -> Instruction:
    """Decode one instruction word from its little-endian bytes."""
    spec = spec or load_spec()
    if len(data) != spec.word_bytes:
        raise DecodeError(f"instruction word must be {spec.word_bytes} bytes, got {len(data)}")
    return decode_word(int.from_bytes(data, "little"), spec)


def decode_program(data: bytes, spec: IsaSpec | None = None) -> list[Instruction]:
    """Decode a stream of instruction words (each decoded once, up front)."""
    spec = spec or load_spec()
    n = spec.word_bytes
    if len(data) % n:
        raise DecodeError(f"instruction stream of {len(data)} bytes is not a multiple of {n}")
    return [decode_word(int.from_bytes(data[i:i + n], "little"), spec)
            for i in range(0, len(data), n)]
