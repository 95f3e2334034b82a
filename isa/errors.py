"""Exceptions of the ISA package; each message names the thing, the value, the limit and a hint."""


class IsaError(ValueError):
    """Base of every error the ISA package raises on bad input."""


class SpecError(IsaError):
    """The spec file itself is inconsistent (overlapping fields, duplicate opcodes, ...)."""


class EncodingError(IsaError):
    """A field value cannot be encoded (unknown field, value out of range, bad enum name)."""


class DecodeError(IsaError):
    """A word is not a legal instruction (unknown opcode, reserved bits set, illegal value)."""
