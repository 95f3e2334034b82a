"""Target: an immutable, validated description of the machine a program is compiled for."""
from __future__ import annotations

import dataclasses
import re
from functools import partial
from types import MappingProxyType
from typing import Any, Mapping

from .attrs import SHAPE2D, TargetError, suggest
from .kinds import TargetKind, get_target_kind, list_target_kinds, lookup_kind
from .plugins import load_plugins
from .tags import list_tags, lookup_tag, range_hint

_OPTION_RE = re.compile(r"^-([A-Za-z][\w-]*)=(.*)$")


def _resolve(name: str) -> tuple:
    """A kind name or a tag name -> (kind, tag or None)."""
    if not isinstance(name, str):
        raise TargetError(f"a target kind or tag is a name such as 'npu' or 'npu-edge', "
                          f"not {name!r} ({type(name).__name__})")
    for attempt in range(2):  # the registered names, then again with the plugin kinds loaded
        tag = lookup_tag(name)
        if tag is not None:
            return get_target_kind(tag.kind), tag
        kind = lookup_kind(name)
        if kind is not None:
            return kind, None
        if attempt == 0:
            load_plugins()
    kinds = list_target_kinds()
    raise TargetError(f"unknown target kind '{name}'" + suggest(name, kinds, kinds + list_tags())
                      + f"; tags: {', '.join(list_tags())}")


def _tag_value(attr, tag_attrs: Mapping[str, Any], values: Mapping[str, Any]) -> Any:
    """The value a tag gives `attr` on a Target of resolved `values`: the tag's own, unless the
    attribute is a feature of another dataflow (say) than `values` has (Attr.only_with), where
    the kind's default holds: npu-edge's two weight banks are not on `npu-edge -dataflow=os`.
    The one place this rule lives (__init__ applies it, with_attrs re-applies it)."""
    if attr.key in tag_attrs and attr.applies(values):
        return tag_attrs[attr.key]
    return attr.default


class Target:
    """A kind plus a value for every attribute, e.g. `npu -array=16x16 -vector-lanes=16 ...`.

    Construct with `Target("npu", vector_lanes=32)`, `Target("npu-edge", dma_engines=4)`,
    `Target.from_string`, `Target.from_dict` or `Target.create`. `tag` records the preset it came
    from and is not part of equality. Each attribute is the value given, else the tag's, else
    the kind's default; a tag's value for a feature of another dataflow (Attr.only_with: the
    npu kind's weight-buffers and depthwise-mode are ws-array features) holds only on that
    dataflow: `npu-edge -dataflow=os` has one weight bank and no depthwise mode, while an
    explicit `-dataflow=os -weight-buffers=2` is refused.
    """

    __slots__ = ("kind", "tag", "_spec", "_values", "_derived")

    def __init__(self, kind: str, /, **attrs: Any):
        spec, tag = _resolve(kind)
        given = {}
        for name, value in attrs.items():
            attr = spec.attr(name)
            if attr.key in given:
                raise TargetError(f"{spec.name} attribute '{attr.name}' given twice")
            given[attr.key] = value
        base = tag.attrs if tag else {}
        hint = partial(range_hint, spec.name)
        values = {a.key: a.coerce(given.get(a.key, base.get(a.key, a.default)), spec.name, hint)
                  for a in spec.attrs}
        for a in spec.attrs:  # a tag's features of another dataflow (Attr.only_with) drop out
            if a.only_with is not None and a.key not in given:
                values[a.key] = _tag_value(a, base, values)
        frozen = MappingProxyType(values)
        derived = spec.derive(frozen) if spec.derive else None
        for slot, value in (("kind", spec.name), ("tag", tag.name if tag else None),
                            ("_spec", spec), ("_values", frozen), ("_derived", derived)):
            object.__setattr__(self, slot, value)

    # ---- construction ----------------------------------------------------------------------

    @classmethod
    def from_string(cls, text: str) -> "Target":
        """Parse `KIND_OR_TAG [-name=value ...]`."""
        head, *options = text.split() or [""]
        if not head:
            raise TargetError(f"empty target string; expected e.g. 'npu -array=16x16' or a tag: "
                              f"{', '.join(list_tags())}")
        attrs = {}
        for opt in options:
            m = _OPTION_RE.match(opt)
            if not m and _OPTION_RE.match(opt[1:]):
                raise TargetError(f"target option '{opt}' in '{text}' has two dashes; target "
                                  f"options take one: '{opt[1:]}'")
            if not m:
                raise TargetError(f"malformed target option '{opt}' in '{text}'; "
                                  "expected -name=value, e.g. -array=16x16 or -openmp=1")
            if m[1] in attrs:
                raise TargetError(f"target option '-{m[1]}' given twice in '{text}'")
            attrs[m[1]] = m[2]
        return cls(head, **attrs)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Target":
        """Parse `{"kind": "npu" and/or "tag": "npu-edge", "vector-lanes": 16, ...}`."""
        attrs = dict(d)
        kind, tag = attrs.pop("kind", None), attrs.pop("tag", None)
        if kind is None and tag is None:
            raise TargetError("target dict needs a 'kind' (e.g. 'npu') or 'tag' (e.g. 'npu-edge') "
                              f"key; got keys: {', '.join(map(str, d)) or 'none'}")
        target = cls(tag or kind, **attrs)
        if tag is not None and kind is not None and target.kind != kind:
            raise TargetError(f"target dict says kind '{kind}' but tag '{tag}' "
                              f"is a {target.kind} target")
        return target

    @classmethod
    def create(cls, x: Any) -> "Target":
        """Accept a Target, a target string or a target dict."""
        if isinstance(x, Target):
            return x
        if isinstance(x, str):
            return cls.from_string(x)
        if isinstance(x, Mapping):
            return cls.from_dict(x)
        raise TypeError(f"cannot make a Target from {type(x).__name__}; pass a str, dict or Target")

    def with_attrs(self, **overrides: Any) -> "Target":
        """A copy with some attributes changed; keeps the tag it came from. An attribute tied to
        another's value (Attr.only_with) that holds the tag's value is resolved again, so
        `Target("npu-edge").with_attrs(dataflow="os")` is `npu-edge -dataflow=os`."""
        changed = {self._spec.attr(k).key: v for k, v in overrides.items()}
        tag = lookup_tag(self.tag) if self.tag else None
        merged = {k: v for k, v in self._values.items()
                  if k in changed or tag is None or self._spec.attr(k).only_with is None
                  or v != _tag_value(self._spec.attr(k), tag.attrs, self._values)}
        merged.update(changed)
        return Target(self.tag or self.kind, **merged)

    # ---- access ----------------------------------------------------------------------------

    @property
    def attrs(self) -> dict:
        return dict(self._values)

    @property
    def spec(self) -> TargetKind:
        return self._spec

    @property
    def derived(self) -> Any:
        """Values derived from the attributes (Npu/Cpu/GpuDerived), computed once."""
        return self._derived

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # slots not yet set (e.g. during copy) must not recurse
            raise AttributeError(name)
        if name in self._values:
            return self._values[name]
        derived = [f.name for f in dataclasses.fields(self._derived)] if self._derived else []
        if name in derived:
            return getattr(self._derived, name)
        raise AttributeError(f"{self.kind} target has no attribute '{name}'"
                             + suggest(name, list(self._values) + derived))

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(
            f"Target is immutable; use target.with_attrs({name}=...) for a changed copy")

    def __delattr__(self, name: str) -> None:
        self.__setattr__(name, None)

    def to_dict(self) -> dict:
        """JSON-able: dashed attribute names, shapes as 'RxC', plus 'kind' and 'tag'."""
        out = {"kind": self.kind, "tag": self.tag}
        for a in self._spec.attrs:
            v = self._values[a.key]
            out[a.name] = a.format(v) if a.type == SHAPE2D else v
        return out

    def describe(self) -> list:
        """Rows of (attribute, value, unit, doc) for tables and the CLI."""
        return [(a.name, a.format(self._values[a.key]), a.unit, a.doc) for a in self._spec.attrs]

    # ---- value semantics -------------------------------------------------------------------

    def __str__(self) -> str:
        opts = (f"-{a.name}={a.format(self._values[a.key])}" for a in self._spec.attrs)
        return " ".join((self.kind, *opts))

    def __repr__(self) -> str:
        return f"Target({str(self)!r})" + (f"  # tag {self.tag}" if self.tag else "")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Target):
            return NotImplemented
        return self.kind == other.kind and self._values == other._values

    def __hash__(self) -> int:
        return hash((self.kind, tuple(self._values.values())))

    def __reduce__(self):
        # Rebuild through validation so pickles (DSE workers) cannot carry a stale layout.
        return (Target.from_dict, (self.to_dict(),))
