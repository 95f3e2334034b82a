"""The error root of isa, compiler and npusim (NpusimError), and the ISA package's own errors;
each message names the thing, the value, the limit and a hint."""


class NpusimError(Exception):
    """Base of every error isa, compiler and npusim raise on purpose: bad input, a model or
    program that does not fit the Target, a failed toolchain, a simulation fault. It lives
    here, at the bottom of the dependency graph (isa imports nothing of ours), so every layer
    can derive from it; `npusim.NpusimError` is the same class. The CLI prints these as one
    `npusim: error:` line; any other exception is a bug and shows its traceback."""


class IsaError(NpusimError, ValueError):
    """Base of every error the ISA package raises on bad input."""


class SpecError(IsaError):
    """The spec file itself is inconsistent (overlapping fields, duplicate opcodes, ...)."""


class EncodingError(IsaError):
    """A field value cannot be encoded (unknown field, value out of range, bad enum name)."""


class DecodeError(IsaError):
    """A word is not a legal instruction (unknown opcode, reserved bits set, illegal value)."""
