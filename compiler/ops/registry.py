"""The op registry: each op's inputs, typed attributes, shape inference, reference compute,
traits, and the hooks passes, lowering and backends register on it by name."""

from __future__ import annotations

from dataclasses import dataclass, field
import importlib
import pkgutil
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
    exact integer rules of isa.semantics for qnn.* ops).
    traits: properties passes read instead of naming ops (TRAITS lists them).
    hooks: what other modules attach by name (HOOKS lists the keys): the quantization rule,
    the lowering, ... - see register_hook."""

    name: str
    inputs: tuple
    infer: Callable
    compute: Callable
    attrs: tuple = ()
    doc: str = ""
    quantized: bool = False
    traits: frozenset = frozenset()
    attr_map: dict = field(default_factory=dict, compare=False, repr=False)
    hooks: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        self.attr_map.update({a.name: a for a in self.attrs})
        object.__setattr__(self, "traits", frozenset(self.traits))
        unknown = self.traits - set(TRAITS)
        if unknown:
            raise OpError(f"op '{self.name}': unknown trait(s) {sorted(unknown)}; "
                          f"known: {', '.join(TRAITS)}")

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


# What a trait tells the passes (an op has a trait or not; no pass names the op itself).
TRAITS = {
    "alias": "output holds the input's bytes in the same order (no copy, no layer)",
    "pass_through": "the identity at inference; simplify removes it",
    "any_dtype": "computes int8 as exactly as float (data movement): runs in quantized graphs",
    "windowed": "a sliding-window op: convert-layout runs it NHWC",
    "elementwise": "convert-layout lets it follow an NHWC input (constants re-laid out)",
    "channel_axis": "convert-layout lets it follow an NHWC input (its axis re-numbered)",
    "reshape": "flattens/reshapes: NHWC and NCHW agree when the spatial dims are 1x1",
    "bias_add": "fuse absorbs it into the conv/dense before it as the bias",
    "residual_add": "fuse absorbs it into the conv/dense before it as the residual",
}
# The hooks other modules register on an op by name (register_hook), and who reads them.
HOOKS = {
    "quantize": "fn(quantizer, node): the quantize pass's rule (float op -> qnn op)",
    "quantize_hint": "str: why the op cannot be quantized and what to do instead",
    "fused_as": "str: the fused op fuse makes of it (it is a linear op fold-bn may fold into)",
    "fuse_act": "fn(node) -> {kind, min, max}: the activation fuse folds into an epilogue",
    "host_step": "fn(node) -> (kind, arg): the step the host runs for it at a graph's edge",
    "host_input": "fn(node) -> (kind, arg): the step the host runs for it between a model "
                  "input and the NPU (an embedding lookup of token ids), or None",
    "lower": "fn(lowerer, node): lowering to layers (compiler/lower/*)",
    "view": "fn(node) -> axes: the op permutes its input's axes (a transpose), so a matmul "
            "may read or write it as a strided view instead of a copy (lower/views.py)",
    "affine": "fn(constant inputs, attrs) -> (scale, shift) float64 per channel: fold-bn "
              "folds the op into the conv/dense before it, or makes it a depthwise 1x1 conv",
}

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


def register_hook(key: str, *names: str, value: Any = None):
    """Attach hook `key` (one of HOOKS) to ops `names`. With value=None it is a decorator
    whose function is the value; otherwise `value` is attached and returned."""
    if key not in HOOKS:
        raise OpError(f"unknown op hook '{key}'; {did_you_mean(key, HOOKS)}")

    def attach(v):
        for name in names:
            op = get_op(name)
            if key in op.hooks and op.hooks[key] is not v:
                raise OpError(f"op '{name}' has hook '{key}' registered twice "
                              f"({op.hooks[key]!r} and {v!r})")
            op.hooks[key] = v
        return v
    return attach if value is None else attach(value)


def get_hook(name: str, key: str, default: Any = None) -> Any:
    """The value of hook `key` on op `name`, or `default` when none is registered."""
    return get_op(name).hooks.get(key, default)


def has_trait(name: str, trait: str) -> bool:
    if trait not in TRAITS:
        raise OpError(f"unknown op trait '{trait}'; {did_you_mean(trait, TRAITS)}")
    return trait in get_op(name).traits


_IMPORTED: set = set()


def import_package(package: str) -> None:
    """Import every module of `package` once, so the hooks they register exist (a new
    op's lowering or generator file registers itself by being there)."""
    if package in _IMPORTED:
        return
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"{package}.{info.name}")
    _IMPORTED.add(package)
