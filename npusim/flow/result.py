"""Result: one simulated run (cycles, latency, energy, per-unit counters, the per-layer table,
the trace) and its `npusim run --json` form; the per-layer attribution lives here too."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas is imported when a table is asked for (the CLI's start stays fast)
    import pandas as pd


@dataclass
class Result:
    """What simulate() measured. Tables are pandas DataFrames: `layers` (one row per layer),
    `units` (one row per hardware unit: busy, idle, stalls by cause, instructions) and `trace`
    (one row per executed instruction; None unless simulate(trace=True)).

    verify() and compare() record their verdicts here (`verification`, `backends`), so
    to_json() is the whole `npusim run --json` object."""

    name: str                         # the model, as Compiled.name
    target: Any                       # the Target it ran on
    sim: Any                          # npusim.simulate.SimResult
    layer_rows: list                  # the per-layer table as dicts (the JSON's "layers")
    compile_s: float = 0.0
    feeds: dict | None = None         # the float inputs (None for an artifact without model)
    device_inputs: dict = field(default_factory=dict, repr=False)
    outputs: dict = field(default_factory=dict, repr=False)   # device outputs ({} timing-only)
    verification: Any = None          # npusim.flow.Verification, once verified
    backends: dict | None = None      # compare()'s entries by label, once compared
    keep_trace: bool = False

    @classmethod
    def collect(cls, compiled, sim, *, feeds, device_inputs, outputs, keep_trace) -> "Result":
        rows = layer_table(compiled.artifact, sim)
        if not keep_trace:  # the layer table was its only reader: free the rows
            sim._rows, sim._trace = None, None
        return cls(compiled.name, sim.target, sim, rows, compiled.compile_s, feeds,
                   device_inputs, outputs, keep_trace=keep_trace)

    # ---- the measurements ------------------------------------------------------------------

    @property
    def cycles(self) -> int:
        return int(self.sim.cycles)

    @property
    def latency_ms(self) -> float:
        return self.sim.cycles / (self.target.freq_mhz * 1e3)

    @property
    def energy_pj(self) -> float:
        """Total energy of the run (dynamic + static), pJ."""
        return self.sim.energy_pj["total"]

    @property
    def energy_by_action_pj(self) -> dict:
        """mac, sram, dram, vector, static and total, pJ."""
        return dict(self.sim.energy_pj)

    @property
    def timing_only(self) -> bool:
        return self.sim.timing_only

    @property
    def verified(self) -> bool | None:
        return None if self.verification is None else self.verification.verified

    @property
    def units(self) -> pd.DataFrame:
        """Per-unit counters (docs/counters.md), indexed by unit ('core0.matrix', ...)."""
        import pandas as pd
        return pd.DataFrame.from_dict(self.sim.units, orient="index").rename_axis("unit")

    @property
    def layers(self) -> pd.DataFrame:
        """The per-layer table: name, kind, macs, cycles (they sum to the total), utilization,
        dram_bytes, bound, roofline_cycles, est_cycles, schedule."""
        import pandas as pd
        return pd.DataFrame(self.layer_rows)

    @property
    def trace(self) -> pd.DataFrame | None:
        """core, unit, index, mnemonic, start, end, bytes, macs, stall, dispatched per
        executed instruction; None unless simulated with trace=True."""
        return self.sim.trace if self.keep_trace else None

    def save_chrome_trace(self, path) -> None:
        """Write the Chrome/Perfetto trace JSON (needs simulate(trace=True))."""
        if not self.keep_trace:
            from npusim.flow.errors import FlowError
            raise FlowError("this run kept no trace; simulate(..., trace=True) to write one")
        self.sim.save_chrome_trace(path)

    def to_json(self) -> dict:
        """The object `npusim run --json` prints: the same keys, values and order."""
        t, rows = self.target, self.layer_rows
        roof = sum(r["roofline_cycles"] for r in rows)
        checks = self.verification.as_dict() if self.verification is not None else {}
        from isa.checks import target_name
        out = {"model": self.name, "target": target_name(t), "cycles": self.cycles,
               "latency_ms": self.latency_ms, "roofline_cycles": round(roof, 1),
               "roofline_ratio": self.sim.cycles / roof if roof else None,
               "utilization": sum(r["macs"] for r in rows) / (self.sim.cycles * t.derived.
                                                              peak_macs_per_cycle),
               "verified": checks.get("verified"),
               "bit_exact": checks.get("bit_exact"), "top1_agree": checks.get("top1_agree"),
               "snr_db": checks.get("snr_db"), "reference": checks.get("reference"),
               "energy_pj": self.energy_pj, "sim_wall_s": self.sim.sim_wall_s,
               "compile_s": self.compile_s, "instructions": int(self.sim.instructions),
               "dram_bytes": int(sum(self.sim.dram_bytes.values())),
               "timing_only": self.sim.timing_only, "races": len(self.sim.races),
               "layers": rows}
        if self.backends is not None:
            out["backends"] = self.backends
        return out


def layer_table(artifact, result) -> list:
    """One row per layer: name, MACs, cycles, utilization, DRAM bytes, bound, roofline.

    Layers may overlap (their ops interleave); a layer's cycles are those from the end of the
    layers before it to its own end, so the rows sum to the total."""
    df = result.trace
    target = result.target
    n = len(artifact.layers)
    layer = np.full(len(df), -1, np.int64)
    cores, idx = df["core"].to_numpy(), df["index"].to_numpy()
    for c, runs in enumerate(artifact.layer_of):
        if not runs:
            continue
        starts = np.array([r[0] for r in runs])
        ids = np.array([r[1] for r in runs])
        sel = cores == c
        pos = np.searchsorted(starts, idx[sel], side="right") - 1
        layer[sel] = np.where(pos >= 0, ids[np.maximum(pos, 0)], -1)
    df = df.assign(layer=layer, dur=df["end"] - df["start"])
    dma = df["unit"].str.startswith("dma")
    peak = target.derived.peak_macs_per_cycle
    rows, done = [], 0
    for i, info in enumerate(artifact.layers):
        d = df[df["layer"] == i]
        end = int(d["end"].max()) if len(d) else done
        cycles = max(0, end - done)
        done = max(done, end)
        nbytes = int(d.loc[dma[d.index], "bytes"].sum()) if len(d) else 0
        busy = {"matrix": int(d.loc[d["unit"] == "matrix", "dur"].sum()),
                "vector": int(d.loc[d["unit"] == "vector", "dur"].sum()),
                "memory": nbytes / target.dram_bw}
        macs = int(info["macs"])  # the model's MACs (executed ones include zero weights)
        rows.append({"name": info["name"], "kind": info["kind"], "macs": macs,
                     "cycles": cycles, "utilization": macs / (cycles * peak) if cycles else 0.0,
                     "dram_bytes": nbytes,
                     "bound": "memory" if busy["memory"] >= max(busy["matrix"], busy["vector"])
                     else "compute",
                     "roofline_cycles": round(info["roofline_cycles"], 1),
                     "est_cycles": info.get("est_cycles"), "schedule": info.get("schedule", "")})
    assert len(rows) == n
    return rows
