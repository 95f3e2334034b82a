"""Result: one simulated run (cycles, latency, energy, per-unit counters, the per-layer table,
the trace) and its `npusim run --json` form; the per-layer attribution is npusim.flow.layers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from npusim.flow.layers import LayerTable, layer_table

__all__ = ["Result", "layer_table"]  # layer_table: its home before npusim.flow.layers

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
    layer_spans: list | None = field(default=None, repr=False)  # the Perfetto layer track
    host: list = field(default_factory=list)  # the host's steps around the NPU (host_steps)

    @classmethod
    def collect(cls, compiled, sim, *, feeds, device_inputs, outputs, keep_trace) -> "Result":
        table = LayerTable(compiled.artifact, sim)
        rows = table.rows()
        names = [info["name"] for info in compiled.artifact.layers]
        spans = [(c, b, e, names[i]) for c, b, e, i in table.spans] if keep_trace else None
        if not keep_trace:  # the layer table was its only reader: free the rows
            sim._rows, sim._trace, sim._queue_stalls = None, None, None
        return cls(compiled.name, sim.target, sim, rows, compiled.compile_s, feeds,
                   device_inputs, outputs, keep_trace=keep_trace, layer_spans=spans,
                   host=host_steps(compiled.artifact))

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
    def energy_breakdown(self) -> dict:
        """pJ by component: mac, vector, sram_<buffer>, dram, leakage; sums to energy_pj
        (npusim.hw.energy, docs/energy.md)."""
        return dict(self.sim.energy_breakdown)

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
        """The per-layer table (docs/layers.md): name, kind, macs, cycles (a partition: they
        sum to the total), utilization, dram_bytes, bound, roofline_cycles, est_cycles,
        schedule, start, end, overlap_cycles, stalls, stalls_by_unit, cycles_by_cause."""
        import pandas as pd
        return pd.DataFrame(self.layer_rows)

    @property
    def trace(self) -> pd.DataFrame | None:
        """core, unit, index, mnemonic, start, end, bytes, macs, stall, dispatched and
        stall_token, stall_dram, stall_queue, stall_barrier per executed instruction; None
        unless simulated with trace=True."""
        return self.sim.trace if self.keep_trace else None

    def chrome_trace(self) -> dict:
        """The Chrome/Perfetto trace: the unit tracks and, per core, a `layers` track of the
        partition's spans (needs simulate(trace=True))."""
        if not self.keep_trace:
            from npusim.flow.errors import FlowError
            raise FlowError("this run kept no trace; simulate(..., trace=True) to write one")
        from npusim import stats
        sim = self.sim
        return stats.chrome_trace(sim.trace, list(sim.units),
                                  {"target": str(sim.target), "cycles": sim.cycles},
                                  layers=self.layer_spans)

    def save_chrome_trace(self, path) -> None:
        """Write the Chrome/Perfetto trace JSON (needs simulate(trace=True))."""
        import json

        from isa.files import write_atomic
        write_atomic(path, json.dumps(self.chrome_trace()))

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
               "energy_pj": self.energy_pj, "energy_breakdown": self.energy_breakdown,
               "sim_wall_s": self.sim.sim_wall_s,
               "compile_s": self.compile_s, "instructions": int(self.sim.instructions),
               "dram_bytes": int(sum(self.sim.dram_bytes.values())),
               "timing_only": self.sim.timing_only, "races": len(self.sim.races),
               "layers": rows, "host": self.host}
        if self.backends is not None:
            out["backends"] = self.backends
        return out



def host_steps(artifact) -> list:
    """What runs on the host, not the NPU, besides (de)quantizing, in the order of a run: per
    input its steps before the NPU reads it (an embedding lookup of token ids), per output
    its steps after (a final softmax, a layout change); the --json "host" field."""
    from compiler.host import describe_step
    out = [{"side": "input", "model": e.model_name, "tensor": e.name,
            "steps": [describe_step(k, a) for k, a in e.pre]} for e in artifact.inputs if e.pre]
    return out + [{"side": "output", "model": e.model_name, "tensor": e.name,
                   "steps": [describe_step(k, a) for k, a in e.post]}
                  for e in artifact.outputs if e.post]
