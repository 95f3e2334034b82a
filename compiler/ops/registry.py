"""The op registry: each op's inputs, typed attributes, shape inference and reference compute."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..errors import OpError, did_you_mean
from ..ir.types import TensorType

REQUIRED = object()


@dataclass(frozen=True)
class Attr:
    """A typed op attribute. kind: int, float, bool, str, ints, floats, any."""

    name: str
    kind: str
    default: Any = REQUIRED
    length: int | None = None  # for ints/floats
    choices: tuple | None = None
    min: float | None = None

    def coerce(self, value: Any, where: str) -> Any:
        if value is None and self.default is None:
            return None
        try:
            if self.kind in ("ints", "floats"):
                cast = int if self.kind == "ints" else float
                seq = [value] * (self.length or 1) if np.isscalar(value) else list(value)
                value = tuple(cast(v) for v in seq)
                if self.length is not None and len(value) != self.length:
                    raise OpError(f"{where}: attribute '{self.name}' needs {self.length} values, "
                                  f"got {len(value)}: {value}")
                items = value
            elif self.kind == "int":
                if float(value) != int(value):
                    raise ValueError
                value = int(value)
                items = (value,)
            elif self.kind == "float":
                value = float(value)
                items = (value,)
            elif self.kind == "bool":
                value = bool(value)
                items = ()
            elif self.kind == "str":
                value = str(value)
                items = ()
            else:
                items = ()
        except (TypeError, ValueError):
            raise OpError(f"{where}: attribute '{self.name}' = {value!r} is not of kind "
                          f"{self.kind}") from None
        if self.choices is not None and value not in self.choices:
            raise OpError(f"{where}: attribute '{self.name}' = {value!r} is not one of "
                          f"{', '.join(map(str, self.choices))}")
        if self.min is not None and any(v < self.min for v in items):
            raise OpError(f"{where}: attribute '{self.name}' = {value} must be >= {self.min}")
        return value


@dataclass(frozen=True)
class OpDef:
    """One op: its input names ("b?" = optional), attributes, infer and compute functions.

    infer(types, attrs) -> TensorType of the single output; raises OpError on bad inputs.
    compute(arrays, attrs) -> ndarray: the reference semantics (float for nn.* ops, the
    exact integer rules of isa.semantics for qnn.* ops)."""

    name: str
    inputs: tuple
    infer: Callable
    compute: Callable
    attrs: tuple = ()
    doc: str = ""
    quantized: bool = False
    attr_map: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        self.attr_map.update({a.name: a for a in self.attrs})

    @property
    def arity(self) -> tuple:
        required = sum(1 for i in self.inputs if not i.endswith("?"))
        return required, len(self.inputs)

    def normalize_attrs(self, attrs: dict, where: str = "") -> dict:
        """Fill defaults, coerce and validate; unknown names fail with did-you-mean."""
        where = where or self.name
        for key in attrs:
            if key not in self.attr_map:
                raise OpError(f"{where}: op '{self.name}' has no attribute '{key}'; "
                              f"{did_you_mean(key, self.attr_map)}")
        out = {}
        for a in self.attrs:
            if a.name in attrs:
                out[a.name] = a.coerce(attrs[a.name], where)
            elif a.default is REQUIRED:
                raise OpError(f"{where}: op '{self.name}' needs attribute '{a.name}' ({a.kind})")
            else:
                out[a.name] = a.default
        return out

    def check_arity(self, n: int, where: str) -> None:
        lo, hi = self.arity
        if not lo <= n <= hi:
            want = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise OpError(f"{where}: op '{self.name}' takes {want} inputs "
                          f"({', '.join(self.inputs)}), got {n}")

    def infer_type(self, types: list, attrs: dict, where: str = "") -> TensorType:
        self.check_arity(len(types), where or self.name)
        try:
            return self.infer(types, attrs)
        except OpError as e:
            raise OpError(f"{where or self.name}: {e}") from None


_OPS: dict = {}


def register_op(op: OpDef) -> OpDef:
    if op.name in _OPS:
        raise OpError(f"op '{op.name}' is registered twice")
    _OPS[op.name] = op
    return op


def get_op(name: str) -> OpDef:
    from . import load_all  # the op tables register themselves on import
    load_all()
    try:
        return _OPS[name]
    except KeyError:
        raise OpError(f"unknown op '{name}'; {did_you_mean(name, _OPS)}") from None


def list_ops() -> list:
    from . import load_all
    load_all()
    return sorted(_OPS)
