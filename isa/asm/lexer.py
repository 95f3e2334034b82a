"""Splits assembly source into statements: labels, a mnemonic or directive, positioned operands."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_LABEL = re.compile(r"\s*([A-Za-z_][\w.]*)\s*:")
_HEAD = re.compile(r"\s*(\.?[A-Za-z_][\w.]*)")
_KEYED = re.compile(r"([A-Za-z_]\w*)\s*=\s*")
_OPEN, _CLOSE = "([", ")]"


@dataclass
class Operand:
    """One comma-separated operand; columns are 1-based, as editors and compilers count."""

    text: str
    column: int
    key: str | None      # the field name of `key=value`, None for a bare operand
    value: str           # the text after '=' (the whole operand when bare)
    value_column: int


@dataclass
class Statement:
    line: int
    labels: list[tuple[str, int]] = field(default_factory=list)  # (name, column)
    head: str | None = None       # mnemonic or directive ('.equ'), None for a label-only line
    column: int = 0
    rest: str = ""                # raw text after the head, comment removed
    rest_column: int = 0
    operands: list[Operand] = field(default_factory=list)
    unclosed: tuple[str, int] | None = None  # an opening ( [ or " never closed, and its column


def strip_comment(line: str) -> str:
    """Drop a `;` or `#` comment (but not inside a double-quoted string)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch in ";#" and not quoted:
            return line[:i]
    return line


def split_operands(text: str, column: int) -> tuple[list[Operand], tuple[str, int] | None]:
    """Split on commas outside brackets and quotes; `column` is where `text` starts.

    Also returns the first opening bracket or quote that is never closed (char, column)."""
    pieces, opened, quote, start = [], [], None, 0
    for i, ch in enumerate(text + ","):
        if ch == '"':
            quote = None if quote is not None else i
        elif quote is not None:
            continue
        elif ch in _OPEN:
            opened.append(i)
        elif ch in _CLOSE:
            opened = opened[:-1]
        elif ch == "," and not opened:
            pieces.append((start, text[start:i]))
            start = i + 1
    first = min(opened + ([quote] if quote is not None else []), default=None)
    unclosed = None if first is None else (text[first], column + first)
    if len(pieces) == 1 and not pieces[0][1].strip():
        return [], unclosed
    out = []
    for offset, raw in pieces:
        lead = len(raw) - len(raw.lstrip())
        body = raw.strip()
        col = column + offset + lead
        m = _KEYED.match(body)
        if m:
            out.append(Operand(body, col, m[1], body[m.end():], col + m.end()))
        else:
            out.append(Operand(body, col, None, body, col))
    return out, unclosed


def lex_line(text: str, line: int) -> Statement:
    """Parse one source line into a Statement (possibly empty)."""
    body = strip_comment(text.rstrip("\n"))
    stmt = Statement(line)
    pos = 0
    while (m := _LABEL.match(body, pos)) and not body[m.end():].startswith("="):
        stmt.labels.append((m[1], m.start(1) + 1))
        pos = m.end()
    m = _HEAD.match(body, pos)
    if m:
        stmt.head, stmt.column = m[1], m.start(1) + 1
        pos = m.end()
        rest = body[pos:]
        lead = len(rest) - len(rest.lstrip())
        stmt.rest, stmt.rest_column = rest.strip(), pos + lead + 1
        stmt.operands, stmt.unclosed = split_operands(rest, pos + 1)
    elif body[pos:].strip():
        stmt.head, stmt.column = body[pos:].strip(), pos + len(body[pos:]) - \
            len(body[pos:].lstrip()) + 1
    return stmt
