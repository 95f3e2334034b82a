"""Target kinds: the registry, and the npu kind (cpu and gpu are registered by their backends,
compiler/backends/cpu|gpu/target.py, found through isa.target.plugins)."""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from ..spec import load_spec
from .attrs import SHAPE2D, Attr, TargetError, suggest
from .plugins import load_plugins

_RESERVED = ("kind", "tag")  # keys that to_dict/from_dict use for themselves


@dataclass(frozen=True)
class TargetKind:
    """A kind: its attributes in declaration (= printing) order and its derive function."""

    name: str
    attrs: tuple
    derive: Optional[Callable[[Mapping[str, Any]], Any]] = None
    doc: str = ""

    def attr(self, name: str) -> Attr:
        """Look an attribute up by dashed or underscored name."""
        key = name.replace("-", "_")
        for a in self.attrs:
            if a.key == key:
                return a
        dashed = name.replace("_", "-")
        raise TargetError(f"unknown {self.name} attribute '{dashed}'"
                          + suggest(dashed, [a.name for a in self.attrs]))


_KINDS: dict = {}


def register_target_kind(name: str, attrs: Sequence[Attr], derive=None, doc: str = "",
                         override: bool = False) -> TargetKind:
    """Register a kind; its defaults are validated now so a bad declaration fails at import."""
    if name in _KINDS and not override:
        raise TargetError(f"target kind '{name}' is already registered; "
                          "pass override=True to replace it")
    seen = set()
    for a in attrs:
        if a.key in seen or a.key in _RESERVED:
            raise TargetError(f"{name} attribute '{a.name}' is declared twice or uses a "
                              f"reserved name ({', '.join(_RESERVED)})")
        if a.only_with is not None and a.only_with[0] not in seen:
            raise TargetError(f"{name} attribute '{a.name}' is tied to '{a.only_with[0]}', "
                              "which is not declared before it")
        seen.add(a.key)
        a.coerce(a.default, name)
    kind = TargetKind(name, tuple(attrs), derive, doc)
    _KINDS[name] = kind
    return kind


def lookup_kind(name: str) -> Optional[TargetKind]:
    """The kind registered under `name`, or None; loads no plugin."""
    return _KINDS.get(name)


def get_target_kind(name: str) -> TargetKind:
    kind = _KINDS.get(name)
    if kind is None:
        load_plugins()
        kind = _KINDS.get(name)
    if kind is None:
        raise TargetError(f"unknown target kind '{name}'" + suggest(name, list_target_kinds()))
    return kind


def list_target_kinds() -> list:
    load_plugins()
    return sorted(_KINDS)


# ---- npu -----------------------------------------------------------------------------------

BUFFERS = load_spec().buffer_names  # ibuf, wbuf, abuf, obuf


@dataclass(frozen=True)
class NpuDerived:
    """Every width and capacity the compiler and simulator use, derived from the npu attrs."""

    array_rows: int
    array_cols: int
    peak_macs_per_cycle: int
    dram_bytes_per_cycle: int
    dram_bytes_per_s: float
    dram_bytes: int
    elem_bytes: Mapping[str, int]
    buffer_bytes: Mapping[str, int]
    buffer_elems: Mapping[str, int]
    cycle_ns: float
    peak_tops: float


def _derive_npu(a: Mapping[str, Any]) -> NpuDerived:
    rows, cols = a["array"]
    if a["weight_buffers"] > 1 and a["dataflow"] != "ws":
        raise TargetError(f"weight-buffers={a['weight_buffers']} with dataflow={a['dataflow']}: "
                          "the second weight bank belongs to a weight-stationary array's PEs "
                          "(an output-stationary PE holds no weight); hint: -dataflow=ws, or "
                          "-weight-buffers=1")
    # the spec's element types: ABUF holds int32 (int8 path) or fp32 (fp16 path) partial sums
    elem = {b: np.dtype(t).itemsize for b, t in load_spec().elem_types(a["dtype"]).items()}
    nbytes = {b: a[f"{b}_kb"] * 1024 for b in BUFFERS}
    macs = rows * cols * a["num_cores"]
    hz = a["freq_mhz"] * 1e6
    return NpuDerived(
        array_rows=rows, array_cols=cols, peak_macs_per_cycle=macs,
        dram_bytes_per_cycle=a["dram_bw"], dram_bytes_per_s=a["dram_bw"] * hz,
        dram_bytes=a["dram_mb"] * 1024 * 1024,
        elem_bytes=MappingProxyType(elem), buffer_bytes=MappingProxyType(nbytes),
        buffer_elems=MappingProxyType({b: nbytes[b] // elem[b] for b in BUFFERS}),
        cycle_ns=1000.0 / a["freq_mhz"], peak_tops=2 * macs * hz / 1e12,
    )


def _energy(name: str, default: float, doc: str) -> Attr:
    return Attr(name, float, default, min=0.0, doc=doc, unit="pJ")


def _address_kb(buffer: str) -> int:
    """The most KiB of `buffer` its element addresses reach: 2^bits elements of its smallest
    element type (the spec's narrowest buffer-address field: 23 bits, 8 Mi elements)."""
    spec = load_spec()
    bits = min(f.width for i in spec.instructions for f in i.fields if f.buffer)
    elem = min(np.dtype(t).itemsize for t in spec.buffers[buffer].elem_types.values())
    return (1 << bits) * elem // 1024


# The array's rows and columns reach 256: gemm's k and n and conv's cout hold 1..511 (ISA 1.1),
# and 256x256 is SCALE-Sim's TPU (google.cfg), the largest array this model is checked at.
ARRAY_MAX = 256

# features of a weight-stationary array's PEs: a tag's value for them holds on -dataflow=ws
# only, so `npu-edge -dataflow=os` is an os array without them (Attr.only_with)
WS_ONLY = ("dataflow", ("ws",))

NPU_ATTRS = (
    Attr("array", SHAPE2D, (16, 16), 1, ARRAY_MAX,
         doc="systolic array rows x cols (its dataflow: -dataflow)", unit="PEs"),
    # up to two lanes per column of the largest array: its bias + requantize epilogue keeps
    # pace with a 256-wide array's C outputs a cycle (SCALE-Sim's TPU: docs/scalesim.md)
    Attr("vector-lanes", int, 16, 1, 512, doc="vector unit lanes", unit="lanes"),
    Attr("dma-engines", int, 2, 1, 8, doc="DMA channels per core", unit="channels"),
    Attr("num-cores", int, 1, 1, 16, doc="NPU cores sharing DRAM", unit="cores"),
    # up to what the 23-bit element addresses reach: 8 MiB of int8 (32 MiB of int32 partials)
    Attr("ibuf-kb", int, 128, 1, _address_kb("ibuf"), doc="input buffer (dtype elements)",
         unit="KiB"),
    Attr("wbuf-kb", int, 128, 1, _address_kb("wbuf"), doc="weight buffer (dtype elements)",
         unit="KiB"),
    Attr("abuf-kb", int, 256, 1, _address_kb("abuf"),
         doc="accumulator buffer (int32/fp32 words)", unit="KiB"),
    Attr("obuf-kb", int, 64, 1, _address_kb("obuf"), doc="output buffer (dtype elements)",
         unit="KiB"),
    Attr("dram-mb", int, 256, 1, 4096, doc="DRAM capacity", unit="MiB"),
    Attr("dram-bw", int, 16, 1, 1024, doc="DRAM bandwidth shared by all DMA channels and cores",
         unit="B/cycle"),
    Attr("dram-latency", int, 100, 0, 10000, doc="DRAM access latency", unit="cycles"),
    Attr("dma-setup", int, 8, 0, 1000, doc="fixed cost to start a DMA transfer", unit="cycles"),
    Attr("dma-fill-lanes", int, 16, 1, 1024,
         doc="zero-fill elements written per cycle by a DMA load's SRAM side", unit="elements"),
    Attr("vector-pipeline", int, 4, 0, 64, doc="pipeline latency per vector instruction",
         unit="cycles"),
    Attr("queue-depth", int, 8, 1, 256, doc="instruction queue depth per unit", unit="entries"),
    Attr("semaphores", int, 32, 1, 32, doc="semaphores per core", unit="count"),
    Attr("freq-mhz", int, 1000, 1, 10000, doc="clock frequency", unit="MHz"),
    Attr("dtype", str, "int8", choices=load_spec().dtypes,
         doc="data type (fp16 accumulates in fp32)"),
    # ws: each PE holds a weight, inputs stream through, partial sums flow down the columns;
    # os: each PE accumulates one output, inputs and weights both stream in (docs/timing.md)
    Attr("dataflow", str, load_spec().dataflow_names[0], choices=load_spec().dataflow_names,
         doc="systolic array dataflow: ws weight-stationary, os output-stationary"),
    # Energy at 45 nm (sources: docs/energy.md; Horowitz, ISSCC 2014, unless noted).
    _energy("energy-mac-pj", 0.3, "energy per int8 multiply-accumulate (8b mult 0.2 + 32b add "
            "0.1)"),
    _energy("energy-mac-fp16-pj", 2.0, "energy per fp16 multiply-accumulate (16b FP mult 1.1 + "
            "32b FP add 0.9), used when dtype=fp16"),
    _energy("energy-sram-byte-pj", 1.25, "energy per byte read or written in an 8 KiB buffer "
            "(10 pJ per 64 bits); a buffer of B KiB costs this x sqrt(B/8)"),
    _energy("energy-dram-byte-pj", 160.0, "energy per DRAM byte transferred (640 pJ per 32 bits)"),
    _energy("energy-vector-op-pj", 0.1, "energy per vector lane operation (32b add)"),
    Attr("leakage-mw-per-mm2", float, 25.0, min=0.0, unit="mW/mm2",
         doc="leakage power density over the area of npusim.hw.area (Nangate45 typical cells)"),
    Attr("static-mw", float, 0.0, min=0.0, unit="mW",
         doc="static power per core if > 0; 0 derives it from area x leakage-mw-per-mm2"),
    # the matrix engine's depthwise mode (the dwconv instruction, docs/codegen.md): each
    # column its own channel, each PE its own im2col input lane; weight-stationary arrays only
    Attr("depthwise-mode", int, 0, 0, 1,
         doc="1: the array has a depthwise mode (dwconv: a column per channel, a tap per row, "
             "per-PE inputs); ws dataflow only", unit="flag", only_with=WS_ONLY),
    # the PEs' weight banks: 2 loads a conv's next pass's weights while the current pass
    # streams (the spec's [weight_buffers] table, rtl/systolic_array.v WB = 2); ws only
    Attr("weight-buffers", int, 1, 1, max([1, *load_spec().weight_buffers]),
         doc="weight registers per PE: 2 loads the next conv pass's weights while the current "
             "one streams; ws dataflow only", unit="banks", only_with=WS_ONLY),
)

register_target_kind("npu", NPU_ATTRS, _derive_npu, "simulated NPU: systolic array + vector unit")
