"""Errors of the assembler and the program container, each printable as one compiler-style line."""

from __future__ import annotations

from isa.errors import IsaError


class AsmError(IsaError):
    """An error at a place in assembly source: `file:line:col: error: message`.

    When assembly finds several errors, the raised AsmError is the first one and `errors`
    lists them all; str() then gives one line per error (a compiler's error listing).
    """

    def __init__(self, message: str, file: str = "<string>", line: int = 0, column: int = 0,
                 field: str | None = None, value=None):
        super().__init__(message)
        self.message = message
        self.file, self.line, self.column = file, line, column
        self.field, self.value = field, value
        self.errors: list[AsmError] = [self]
        self.truncated = False  # True when assembly stopped collecting at MAX_ERRORS

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}" if self.line else self.file

    def one_line(self) -> str:
        return f"{self.location}: error: {self.message}"

    def __str__(self) -> str:
        lines = [e.one_line() for e in self.errors]
        if self.truncated:
            lines.append(f"{self.file}: error: too many errors ({len(self.errors)}), stopping")
        return "\n".join(lines)


class ContainerError(IsaError):
    """A program file that cannot be loaded: foreign, another ISA version, truncated, corrupted."""
