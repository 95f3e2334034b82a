"""Typed, ranged, documented attributes that a target kind declares."""
from __future__ import annotations

import difflib
import math
import numbers
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

from isa.errors import NpusimError

SHAPE2D = "shape2d"  # "RxC" in strings, a (rows, cols) tuple in Python

_SHAPE_RE = re.compile(r"^(\d+)\s*[xX]\s*(\d+)$")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
_TYPE_NAMES = {int: "int", float: "float", bool: "bool", str: "str", SHAPE2D: "shape2d"}
_EXPECTED = {
    int: "an integer such as 16",
    float: "a number such as 0.5",
    bool: "1/0 or true/false",
    str: "a word without spaces",
    SHAPE2D: "ROWSxCOLS such as 16x16",
}

# Given the violated attribute and whether the value was too high, name a legal preset value.
RangeHint = Callable[["Attr", bool], Optional[str]]


class TargetError(NpusimError, ValueError):
    """A target string, dict, kind, tag or attribute value is invalid."""


def suggest(word: str, known: Iterable[str], candidates: Optional[Iterable[str]] = None,
            label: str = "known") -> str:
    """Return "; did you mean 'x'? known: ..." (or just "; known: ...") for an error message."""
    known = list(known)
    pool = list(candidates) if candidates is not None else known
    close = difflib.get_close_matches(word, pool, n=1)
    guess = f"; did you mean '{close[0]}'?" if close else ";"
    return f"{guess} {label}: {', '.join(known)}"


@dataclass(frozen=True)
class Attr:
    """One attribute of a target kind: dashed `name`, type, default, inclusive min/max."""

    name: str
    type: Any
    default: Any
    min: Any = None
    max: Any = None
    choices: Optional[tuple] = None
    doc: str = ""
    unit: str = ""
    # (attribute key, values): a feature of the machine that attribute describes, e.g.
    # ("dataflow", ("ws",)) for a weight-stationary array's weight banks. A tag's value for it
    # holds only where the Target's resolved value of that attribute is one of `values`;
    # elsewhere the kind's default does (Target resolves this; a value given explicitly stays)
    only_with: Optional[tuple] = None

    def __post_init__(self):
        if self.type not in _TYPE_NAMES:
            raise TargetError(f"attribute '{self.name}' has unsupported type {self.type!r}; "
                              f"use one of int, float, bool, str, '{SHAPE2D}'")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))
        if self.only_with is not None:
            key, values = self.only_with
            object.__setattr__(self, "only_with", (key.replace("-", "_"), tuple(values)))

    def applies(self, values) -> bool:
        """Whether this attribute's feature exists on a Target of resolved `values` (always,
        unless `only_with` ties it to another attribute's values)."""
        return self.only_with is None or values[self.only_with[0]] in self.only_with[1]

    @property
    def key(self) -> str:
        """The Python (underscored) name."""
        return self.name.replace("-", "_")

    def coerce(self, value: Any, kind: str, hint: Optional[RangeHint] = None) -> Any:
        """Parse a string literal or check a Python value, then check choices and range."""
        what = f"{kind} attribute '{self.name}'"
        if isinstance(value, str) and self.type is not str:
            out = self._parse(value.strip(), what)
        else:
            out = self._convert(value, what)
        self._check(out, what, hint)
        return out

    def format(self, value: Any) -> str:
        """The literal that `coerce` parses back to `value`."""
        if self.type == SHAPE2D:
            return f"{value[0]}x{value[1]}"
        if self.type is bool:
            return "1" if value else "0"
        return repr(value) if self.type is float else str(value)

    def _parse(self, text: str, what: str) -> Any:
        try:
            if self.type == SHAPE2D:
                m = _SHAPE_RE.match(text)
                if m:
                    return (int(m[1]), int(m[2]))
            elif self.type is bool:
                if text.lower() in _TRUE + _FALSE:
                    return text.lower() in _TRUE
            elif self.type is int:
                return int(text, 10)
            elif math.isfinite(float(text)):
                return float(text)
        except ValueError:
            pass
        raise TargetError(f"{what} value '{text}' is not a valid {_TYPE_NAMES[self.type]}; "
                          f"expected {_EXPECTED[self.type]}")

    def _convert(self, value: Any, what: str) -> Any:
        def is_int(v):
            return isinstance(v, numbers.Integral) and not isinstance(v, bool)

        t = self.type
        if t == SHAPE2D and isinstance(value, (tuple, list)) and len(value) == 2 \
                and all(map(is_int, value)):
            return (int(value[0]), int(value[1]))
        if t is bool and (isinstance(value, bool) or (is_int(value) and value in (0, 1))):
            return bool(value)
        if t is int and is_int(value):
            return int(value)
        if t is float and isinstance(value, numbers.Real) and not isinstance(value, bool) \
                and math.isfinite(value):
            return float(value)
        # Strings must survive the whitespace-separated target string format.
        if t is str and isinstance(value, str) and not any(c.isspace() for c in value):
            return value
        raise TargetError(f"{what} value {value!r} ({type(value).__name__}) is not a valid "
                          f"{_TYPE_NAMES[t]}; expected {_EXPECTED[t]}")

    def _check(self, value: Any, what: str, hint: Optional[RangeHint]) -> None:
        shown = self.format(value)
        if self.choices is not None and value not in self.choices:
            names = [self.format(c) for c in self.choices]
            raise TargetError(f"{what} value '{shown}' is not allowed"
                              + suggest(shown, names, label="choices"))
        dims = zip(("rows ", "cols "), value) if self.type == SHAPE2D else [("", value)]
        for label, v in dims:
            high = self.max is not None and v > self.max
            if high or (self.min is not None and v < self.min):
                if self.min is not None and self.max is not None:
                    span = f"{self.min}..{self.max}"
                else:
                    span = f">= {self.min}" if self.min is not None else f"<= {self.max}"
                note = hint(self, high) if hint else None
                raise TargetError(f"{what} value '{shown}' out of range: {label}{span}"
                                  + (f" ({note})" if note else ""))
