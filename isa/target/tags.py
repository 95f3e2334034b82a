"""Named target presets (TVM-style tags): a kind plus validated attribute overrides; the npu tags
(the cpu and gpu tags come with their kinds, from their backends)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Optional

from .attrs import Attr, TargetError, suggest
from .kinds import get_target_kind, lookup_kind
from .plugins import load_plugins


@dataclass(frozen=True)
class TargetTag:
    name: str
    kind: str
    attrs: Mapping[str, Any]  # underscored name -> validated value; the rest are kind defaults
    description: str


_TAGS: dict = {}


class _Tags(Mapping):
    """Every registered tag, in registration order; reading it loads the plugin kinds first
    (a name already registered is answered without them)."""

    def __getitem__(self, name: str) -> TargetTag:
        if name not in _TAGS:
            load_plugins()
        return _TAGS[name]

    def __contains__(self, name: object) -> bool:
        if name not in _TAGS:
            load_plugins()
        return name in _TAGS

    def __iter__(self) -> Iterator[str]:
        load_plugins()
        return iter(list(_TAGS))

    def __len__(self) -> int:
        load_plugins()
        return len(_TAGS)


TARGET_TAGS: Mapping[str, TargetTag] = _Tags()


def register_tag(name: str, kind: str, attrs: Mapping[str, Any], description: str,
                 override: bool = False) -> TargetTag:
    spec = get_target_kind(kind)
    if lookup_kind(name) is not None:
        raise TargetError(f"tag '{name}' would shadow the target kind of the same name; "
                          "pick another name")
    if name in _TAGS and not override:
        raise TargetError(f"target tag '{name}' is already registered; "
                          "pass override=True to replace it")
    values = {spec.attr(k).key: spec.attr(k).coerce(v, kind) for k, v in attrs.items()}
    tag = TargetTag(name, kind, MappingProxyType(values), description)
    _TAGS[name] = tag
    return tag


def lookup_tag(name: str) -> Optional[TargetTag]:
    """The tag registered under `name`, or None; loads no plugin."""
    return _TAGS.get(name)


def get_tag(name: str) -> TargetTag:
    try:
        return TARGET_TAGS[name]
    except KeyError:
        raise TargetError(f"unknown target tag '{name}'" + suggest(name, list_tags())) from None


def list_tags(kind: Optional[str] = None) -> list:
    return [n for n, t in TARGET_TAGS.items() if kind is None or t.kind == kind]


def range_hint(kind: str, attr: Attr, high: bool) -> Optional[str]:
    """Name the preset nearest the violated limit, so an out-of-range error shows a legal value."""
    tags = [TARGET_TAGS[n] for n in list_tags(kind)]
    if not tags:
        return f"default is {attr.format(attr.default)}"
    value = lambda t: t.attrs.get(attr.key, attr.default)  # noqa: E731
    pick = (max if high else min)(tags, key=value)
    return f"{pick.name} has {attr.format(value(pick))}"


register_tag("npu-tiny", "npu", dict(
    array=(4, 4), vector_lanes=4, dma_engines=1, num_cores=1, ibuf_kb=4, wbuf_kb=4, abuf_kb=16,
    obuf_kb=4, dram_mb=1, dram_bw=4, dram_latency=10, dma_setup=2, vector_pipeline=2,
    queue_depth=4, semaphores=8, freq_mhz=100),
    "4x4 array, small buffers: sized for fast RTL co-simulation")
# npu-edge and npu-server have the ws array's two weight banks per PE (a conv's next pass
# loads while the current one streams: ResNet-18 1.204x -> 1.028x its roofline on npu-edge,
# ResNet-50 1.641x -> 1.321x on npu-server, issue 11) and its depthwise mode (MobileNetV2 on
# npu-server 464,691 -> 308,640 cycles for +6.5 mm2). Both are ws features: on -dataflow=os
# they fall back to the npu defaults (Attr.only_with); npu-tiny keeps the RTL's default build.
register_tag("npu-edge", "npu", dict(weight_buffers=2, depthwise_mode=1),
             "16x16 single-core edge NPU: the npu defaults plus two weight banks per PE and "
             "the depthwise mode (ws features: not on -dataflow=os)")
register_tag("npu-server", "npu", dict(
    array=(32, 32), vector_lanes=64, dma_engines=4, num_cores=4, ibuf_kb=512, wbuf_kb=512,
    abuf_kb=1024, obuf_kb=256, dram_mb=4096, dram_bw=64, dram_latency=200, freq_mhz=1500,
    weight_buffers=2, depthwise_mode=1),
    "4 cores of 32x32 arrays sharing 64 B/cycle DRAM, two weight banks per PE and the "
    "depthwise mode (ws features: not on -dataflow=os)")
