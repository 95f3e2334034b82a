"""The objectives (and constraint quantities) of a study: one registered function each, computed
per workload from its timing-only run, aggregated over workloads by their geometric mean."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Measured:
    """What one workload's timing-only simulation measured at one point, and the point's
    Target and area: the input of every objective."""

    cycles: int
    latency_ms: float
    energy_pj: float
    macs: int
    dram_bytes: int
    target: Any           # isa.target.Target
    area_mm2: float       # NaN where no area model covers the Target (the error in area_error)
    area_error: str = ""


@dataclass(frozen=True)
class Objective:
    name: str
    fn: Callable[[Measured], float]
    unit: str
    doc: str


OBJECTIVES: dict = {}


def objective(name: str, unit: str, doc: str):
    """Register `fn(Measured) -> float` as objective `name` (usable in [objectives] and
    [constraints]; docs/dse.md lists them)."""
    def register(fn):
        OBJECTIVES[name] = Objective(name, fn, unit, doc)
        return fn
    return register


def area_mm2(target) -> float:
    """The one place the DSE asks for a Target's area: npusim.hw.area's model (mm^2 at 45 nm,
    logic fitted to Yosys synthesis plus SRAM; docs/energy.md)."""
    from npusim.hw.area import area_mm2 as model
    return float(model(target))


def point_area(target) -> tuple:
    """(area, error text): NaN and the reason where the model cannot price the Target (its
    fit file missing or stale)."""
    try:
        return area_mm2(target), ""
    except (KeyError, FileNotFoundError, ValueError) as e:
        return math.nan, f"area_mm2: {str(e.args[0] if e.args else e)}"


@objective("cycles", "cycles", "total cycles of one inference")
def _cycles(m: Measured) -> float:
    return float(m.cycles)


@objective("latency_ms", "ms", "cycles at the Target's clock (freq-mhz)")
def _latency(m: Measured) -> float:
    return m.latency_ms


@objective("energy_uj", "uJ", "energy of one inference (dynamic + static), Result.energy_pj / 1e6")
def _energy(m: Measured) -> float:
    return m.energy_pj / 1e6


@objective("area_mm2", "mm^2", "core area (npusim.hw.area); the same for every workload")
def _area(m: Measured) -> float:
    return m.area_mm2


@objective("edp", "uJ*ms", "energy-delay product: energy_uj x latency_ms")
def _edp(m: Measured) -> float:
    return m.energy_pj / 1e6 * m.latency_ms


@objective("utilization", "fraction", "MACs / (cycles x peak MACs per cycle), 0..1")
def _utilization(m: Measured) -> float:
    return m.macs / (m.cycles * m.target.derived.peak_macs_per_cycle) if m.cycles else 0.0


@objective("throughput_per_mm2", "inferences/s/mm^2", "1000 / latency_ms / area_mm2")
def _throughput_per_mm2(m: Measured) -> float:
    return 1000.0 / m.latency_ms / m.area_mm2 if m.latency_ms > 0 else math.nan


@objective("dram_mb", "MB", "DRAM bytes moved per inference / 1e6")
def _dram(m: Measured) -> float:
    return m.dram_bytes / 1e6


def geomean(values) -> float:
    """The aggregate over workloads: the geometric mean (scale-free, so a 10 ms model and a
    1 ms one weigh alike); NaN if any is NaN, 0 if any is 0."""
    values = [float(v) for v in values]
    if not values or any(math.isnan(v) for v in values):
        return math.nan
    if all(v == values[0] for v in values):  # one workload (or equal values): exactly it
        return values[0]
    if any(v <= 0 for v in values):
        return 0.0 if all(v >= 0 for v in values) else math.nan
    return math.exp(sum(math.log(v) for v in values) / len(values))


def evaluate_all(measured: dict) -> tuple:
    """{label: Measured} -> ({objective: aggregate}, {objective: {label: value}})."""
    per = {name: {label: float(o.fn(m)) for label, m in measured.items()}
           for name, o in OBJECTIVES.items()}
    agg = {name: geomean(vals.values()) for name, vals in per.items()}
    return agg, per
