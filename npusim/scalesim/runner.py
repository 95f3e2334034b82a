"""`npusim scalesim`'s engine: each topology layer compiled for the config's Target and
simulated (timing only), measured in SCALE-Sim's columns and ours."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from npusim import flow

from .config import ScaleConfig
from .errors import ScaleSimError
from .layers import LOWERINGS, layer_graph
from .metrics import measure
from .target import calc_note, config_target
from .topology import Topology

# Swapped roles make the input the stationary operand (SCALE-Sim's "is" dataflow): off, so a
# ws config runs weight-stationary passes as SCALE-Sim does. Our layout rewrites (space-to-
# depth, folding kernel columns into channels, strided loads) keep weights stationary: on.
WS_REWRITES = {"swap": False}


@dataclass
class LayerResult:
    index: int
    layer: object
    rows: dict            # measure()'s four rows
    compile_s: float
    simulate_s: float
    reused: bool = False  # same geometry as an earlier layer: its program and numbers


@dataclass
class ScaleRun:
    config: ScaleConfig
    topology: Topology
    target: object
    layers: list = field(default_factory=list)
    wall_s: float = 0.0
    lowering: str = "conv"
    run_notes: tuple = ()  # what the run itself decided (CALC's buffer sizes)

    @property
    def notes(self) -> tuple:
        return self.config.notes + self.topology.notes + self.run_notes

    def total(self, column: str) -> int:
        return sum(r.rows["compute" if column in r.rows["compute"] else "ours_compute"][column]
                   for r in self.layers)


def _geometry(layer) -> tuple:
    return (layer.kind, layer.ifmap_h, layer.ifmap_w, layer.filter_h, layer.filter_w,
            layer.channels, layer.filters, layer.stride_h, layer.stride_w)


def compile_layer(layer, target, seed: int = 0, lowering: str = "conv"):
    """The layer's program for `target` (the cost model's tiles; no neighbour search)."""
    rewrites = WS_REWRITES if getattr(target, "dataflow", "ws") == "ws" else None
    return flow.compile(layer_graph(layer, seed, lowering), target, evaluate=None,
                        num_calib=1, seed=seed, rewrites=rewrites)


def run(config: ScaleConfig, topology: Topology, *, overrides: str = "", lowering: str = "conv",
        progress=None) -> ScaleRun:
    """Compile and simulate every layer; a layer whose geometry repeats reuses the first
    one's program and numbers (the same program on the same Target gives the same cycles).
    `lowering`: how a conv layer becomes a program (layers.layer_graph); `progress(done,
    total, name)` is called after each layer."""
    if lowering not in LOWERINGS:
        raise ScaleSimError(f"lowering {lowering!r}: use one of {', '.join(LOWERINGS)}")
    t0 = time.perf_counter()
    target = config_target(config, overrides, topology.layers)
    note = calc_note(config, target)
    out = ScaleRun(config, topology, target, lowering=lowering,
                   run_notes=(note,) if note else ())
    seen: dict = {}
    for i, layer in enumerate(topology.layers):
        key = _geometry(layer)
        if key in seen:
            first = seen[key]
            rows = {name: dict(row) for name, row in first.rows.items()}
            for name in ("ours_compute", "ours_bandwidth"):
                rows[name]["Layer"] = layer.name
            out.layers.append(replace(first, index=i, layer=layer, rows=rows, reused=True))
        else:
            t1 = time.perf_counter()
            compiled = compile_layer(layer, target, lowering=lowering)
            t2 = time.perf_counter()
            result = flow.simulate(compiled, timing_only=True, trace=True)
            t3 = time.perf_counter()
            seen[key] = LayerResult(i, layer, measure(layer, compiled, result), t2 - t1, t3 - t2)
            out.layers.append(seen[key])
        if progress:
            progress(i + 1, len(topology.layers), layer.name)
    out.wall_s = time.perf_counter() - t0
    return out
