"""The report's tables: the frames each report shows, their CSV files, and how a cell's
value is written for people (thousands separators, 4 significant digits)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd


def write_csv(directory, tables: dict) -> dict:
    """Write each {name: DataFrame} as DIR/NAME.csv (atomically, the index kept when it is
    named, as the units table's); -> {name: path}. Creates DIR."""
    from isa.files import write_atomic
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, frame in tables.items():
        if frame is None:
            continue
        keep_index = frame.index.name is not None
        write_atomic(directory / f"{name}.csv", frame.to_csv(index=keep_index))
        out[name] = directory / f"{name}.csv"
    return out


def run_tables(result) -> dict:
    """{name: DataFrame} of a flow Result for CSV: layers (flattened), units, trace (if kept)."""
    from npusim.report import frames
    return {"layers": frames.layer_table(result.layers), "units": result.units,
            "trace": result.trace}


def sim_tables(sim, artifact=None) -> dict:
    """{name: DataFrame} of a bare simulator run (npusim.simulate.SimResult) for CSV: units,
    trace (if kept) and, for a compiled artifact's program, its layers."""
    from npusim.flow import layer_table
    from npusim.report import frames
    out = {"units": pd.DataFrame.from_dict(sim.units, orient="index").rename_axis("unit")}
    if sim._rows is not None or sim._trace is not None:
        out["trace"] = sim.trace
        if artifact is not None:
            out["layers"] = frames.layer_table(pd.DataFrame(layer_table(artifact, sim)))
    return out


def cell(value) -> str:
    """A value as a person reads it in a table."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "")
                                  in "iu"):
        return f"{int(value):,}"
    if isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f"):
        v = float(value)
        if v.is_integer() and abs(v) < 1e15:  # an integer column with a gap is float64
            return f"{int(v):,}"
        return f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:.4g}"
    return str(value)


def sort_key(value) -> str:
    """The raw value a table sorts by (numbers as numbers, the rest as text)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return str(int(value))
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return str(value)


def shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as a report shows it: its named index as the first column."""
    return frame.reset_index() if frame.index.name is not None else frame
