"""The tables behind the figures, derived from a Result's DataFrames: per-layer cycles by
cause, layer spans on the time axis, the backend comparison, run-vs-run deltas."""

from __future__ import annotations

import numpy as np
import pandas as pd

# flow's cycles_by_cause keys, in stacking order (bottom first)
CAUSES = ("compute", "dma", "dram", "token", "queue", "barrier", "idle")


def has_causes(layers: pd.DataFrame) -> bool:
    """Whether the per-layer table attributes each layer's cycles to causes (cycles_by_cause)."""
    return "cycles_by_cause" in layers.columns and layers["cycles_by_cause"].map(
        lambda v: isinstance(v, dict)).all()


def layer_causes(layers: pd.DataFrame) -> pd.DataFrame:
    """One row per layer, one column per cause (CAUSES), in cycles; the row sums are the
    layers' cycles. Needs cycles_by_cause (has_causes)."""
    rows = [{c: float(d.get(c, 0)) for c in CAUSES} for d in layers["cycles_by_cause"]]
    return pd.DataFrame(rows, index=layers.index, columns=list(CAUSES))


def layer_spans(layers: pd.DataFrame) -> pd.DataFrame:
    """name, start, end (cycles) of each layer on the run's time axis: the table's own
    start/end where it has them, else the running sum of cycles (the rows partition the run)."""
    if {"start", "end"} <= set(layers.columns):
        return layers[["name", "start", "end"]].astype({"start": "int64", "end": "int64"})
    end = layers["cycles"].cumsum().astype("int64")
    return pd.DataFrame({"name": layers["name"], "start": end - layers["cycles"], "end": end})


def layer_bands(layers: pd.DataFrame) -> pd.DataFrame:
    """name, start, end of disjoint bands for drawing: each layer from where the layers before
    it ended (or its own start, if later) to its own end. Layers overlap (their ops
    interleave); bands do not, so a timeline shows one layer name per stretch of time."""
    spans = layer_spans(layers)
    before = spans["end"].cummax().shift(1, fill_value=0)
    start = np.maximum(spans["start"], before)
    return pd.DataFrame({"name": spans["name"], "start": start,
                         "end": np.maximum(spans["end"], start)})


def compare_frame(summary: dict) -> pd.DataFrame:
    """label, target, latency_ms, figure ('simulated' | 'measured' | 'estimated' | 'error'):
    the NPU run and each --compare backend of a Result.to_json()."""
    rows = [{"label": "npu", "target": summary["target"], "latency_ms": summary["latency_ms"],
             "figure": "simulated"}]
    for label, b in (summary.get("backends") or {}).items():
        figure = "error" if b.get("error") else "measured" if b.get("measured") else "estimated"
        rows.append({"label": label, "target": b["target"], "latency_ms": b.get("latency_ms"),
                     "figure": figure})
    return pd.DataFrame(rows)


def delta_frame(layers: pd.DataFrame, baseline: pd.DataFrame) -> pd.DataFrame:
    """name, cycles, baseline_cycles, delta (cycles - baseline), ratio per layer present in
    both runs, matched by name (and by occurrence for repeated names), in the run's order."""
    def keyed(df):
        return df.assign(_n=df.groupby("name").cumcount())[["name", "_n", "cycles"]]
    both = keyed(layers).merge(keyed(baseline), on=["name", "_n"], how="inner",
                               suffixes=("", "_base"), sort=False)
    out = pd.DataFrame({"name": both["name"], "cycles": both["cycles"].astype("int64"),
                        "baseline_cycles": both["cycles_base"].astype("int64")})
    out["delta"] = out["cycles"] - out["baseline_cycles"]
    out["ratio"] = out["cycles"] / out["baseline_cycles"].replace(0, np.nan)
    return out.reset_index(drop=True)


def unit_table(units: pd.DataFrame, cycles: int) -> pd.DataFrame:
    """The per-unit counters with busy% of the run (the table of the report)."""
    out = units.copy()
    out["busy_pct"] = (100.0 * out["busy"] / max(int(cycles), 1)).round(1)
    return out.reset_index()


def layer_table(layers: pd.DataFrame) -> pd.DataFrame:
    """The per-layer table flattened for CSV and HTML: dict columns (stalls, cycles_by_cause,
    stalls_by_unit) become one column per key (`cycles_by_cause.compute`, ...)."""
    flat = layers.copy()
    for col in [c for c in flat.columns if flat[c].map(lambda v: isinstance(v, dict)).any()]:
        parts = pd.json_normalize(flat[col].map(lambda v: v if isinstance(v, dict) else {})
                                  .tolist(), sep=".").add_prefix(f"{col}.")
        parts.index = flat.index
        flat = pd.concat([flat.drop(columns=col), parts], axis=1)
    return flat
