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


class _Layout:
    """One instruction's encoding plan, precomputed from its spec entry: a compiler builds
    tens of thousands of instructions per model, so the per-field spec properties (legal
    range, mask, enum) are looked up once, not once per field per instruction."""

    def __init__(self, ins: InstructionSpec, spec: IsaSpec):
        self.ins, self.spec = ins, spec
        self.base = ins.opcode << spec.opcode_lsb
        # (name, lsb, mask, lo, hi, enum values by name or None, split): split is None, or
        # for a split field (its first part's mask, ((lsb in the word, part mask, shift in
        # the value) of each later part)); its first part is at lsb
        self.fields = tuple((f.name, f.lsb, f.mask, *f.legal,
                             spec.enums[f.enum].values if f.enum else None, _split(f))
                            for f in ins.fields)
        self.signs = {f.name: 1 << (f.width - 1) if f.signed else 0 for f in ins.fields}
        self.enum_codes = {f.name: frozenset(spec.enums[f.enum].names) for f in ins.fields
                           if f.enum}
        buffers = spec.enums["buf"].values
        # address fields written as (buffer, address): the selector field they set, or None
        # for a fixed-buffer field (whose buffer the pair must name)
        self.pairs = {f.name: (None if f.buffer in buffers else f.buffer, f.buffer)
                      for f in ins.fields if f.buffer}


def _split(f: FieldSpec):
    if not f.split:
        return None
    later = tuple((b, (1 << w) - 1, sum(x for _, x in f.parts[:i]))
                  for i, (b, w) in enumerate(f.parts) if i)
    return (1 << f.parts[0][1]) - 1, later


_LAYOUTS: dict = {}  # id(InstructionSpec) -> _Layout (which holds the spec entry alive)


def _layout(ins: InstructionSpec, spec: IsaSpec) -> _Layout:
    lay = _LAYOUTS.get(id(ins))
    if lay is None or lay.ins is not ins:
        lay = _LAYOUTS[id(ins)] = _Layout(ins, spec)
    return lay


def _instruction_spec(mnemonic: str, spec: IsaSpec) -> InstructionSpec:
    ins = spec.by_mnemonic.get(mnemonic)
    if ins is None:
        import difflib
        close = difflib.get_close_matches(mnemonic, spec.by_mnemonic, n=1)
        hint = f" did you mean '{close[0]}'?" if close else ""
        raise EncodingError(f"unknown mnemonic '{mnemonic}';{hint} known: "
                            f"{', '.join(spec.by_mnemonic)}")
    return ins


def make_instruction(mnemonic: str, spec: IsaSpec | None = None, **operands) -> Instruction:
    """Build and validate an Instruction without a trip through an instruction word: fields
    as ints, enum fields by name or number, a buffer address as a (buffer, address) pair
    (`dst=("abuf", 0x30)`, the assembler's `dst=abuf[0x30]`). Omitted fields are zero;
    every value is checked against its field's legal range (EncodingError)."""
    spec = spec or load_spec()
    ins = _instruction_spec(mnemonic, spec)
    lay = _layout(ins, spec)
    for name, (selector, buffer) in lay.pairs.items():
        value = operands.get(name)
        if type(value) is tuple:
            if selector is None:
                if value[0] != buffer:
                    raise EncodingError(f"{mnemonic}: field '{name}' always addresses {buffer}, "
                                        f"not {value[0]}")
            else:
                operands[selector] = value[0]
            operands[name] = value[1]
    fields = {}
    for name, _, _, lo, hi, names, _ in lay.fields:
        value = operands.pop(name, 0)
        if names is not None and isinstance(value, str):
            value = names[value] if value in names else \
                enum_value(spec, ins.field_map[name], value)  # raises, with a hint
        elif type(value) is not int:
            value = int(value)
        if not lo <= value <= hi or (names is not None and value not in lay.enum_codes[name]):
            _check_value(ins, ins.field_map[name], value, spec)
        fields[name] = value
    if operands:
        raise EncodingError(f"{mnemonic}: unknown field(s) {', '.join(sorted(operands))}; "
                            f"fields are: {', '.join(ins.field_map) or '(none)'}")
    return Instruction(ins, fields)


def encode_word(instr: Instruction, spec: IsaSpec | None = None) -> int:
    """The int word of an Instruction (its values checked against their fields again: an
    Instruction can be built by hand)."""
    spec = spec or load_spec()
    lay = _layout(instr.spec, spec)
    word, values = lay.base, instr.fields
    for name, lsb, mask, lo, hi, names, split in lay.fields:
        value = values[name]
        if not lo <= value <= hi or (names is not None and value not in lay.enum_codes[name]):
            _check_value(instr.spec, instr.spec.field_map[name], value, spec)
        value &= mask
        if split is not None:  # the low bits where the field starts, the rest in its parts
            low, later = split
            for plsb, pmask, shift in later:
                word |= ((value >> shift) & pmask) << plsb
            value &= low
        word |= value << lsb
    return word


def encode_fields(mnemonic: str, spec: IsaSpec | None = None, **values) -> int:
    """Encode one instruction to an int word. Omitted fields are zero (checked against range)."""
    spec = spec or load_spec()
    ins = _instruction_spec(mnemonic, spec)
    unknown = set(values) - set(ins.field_map)
    if unknown:
        raise EncodingError(f"{mnemonic}: unknown field(s) {', '.join(sorted(unknown))}; "
                            f"fields are: {', '.join(ins.field_map) or '(none)'}")
    return encode_word(make_instruction(mnemonic, spec, **values), spec)


def encode(instr: Instruction, spec: IsaSpec | None = None) -> bytes:
    """Encode a decoded Instruction back to its little-endian bytes."""
    spec = spec or load_spec()
    return encode_fields(instr.mnemonic, spec, **instr.fields).to_bytes(spec.word_bytes, "little")


def instruction(mnemonic: str, *, spec: IsaSpec | None = None, **values) -> Instruction:
    """Build (and validate) an Instruction from field values; enum values may be names.
    `spec`: the ISA spec it belongs to (default isa/npu_isa.toml; see load_spec(path))."""
    return make_instruction(mnemonic, spec, **values)


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
    lay = _layout(ins, spec)
    fields, signs = {}, lay.signs
    for name, lsb, mask, lo, hi, names, split in lay.fields:
        if split is None:
            value = (word >> lsb) & mask
        else:
            low, later = split
            value = (word >> lsb) & low
            for plsb, pmask, shift in later:
                value |= ((word >> plsb) & pmask) << shift
        if value & signs[name]:  # two's complement
            value -= mask + 1
        if not lo <= value <= hi or (names is not None and value not in lay.enum_codes[name]):
            try:
                _check_value(ins, ins.field_map[name], value, spec)
            except EncodingError as e:
                raise DecodeError(f"illegal instruction: {e}") from None
        fields[name] = value
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
