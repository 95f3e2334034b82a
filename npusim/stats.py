"""Results of a run: per-unit counters, work totals, the trace DataFrame and its Chrome/Perfetto
JSON (energy is npusim.hw.energy).

Every counter is defined in docs/counters.md; keep the two in step.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from npusim.tracelog import RECORDED, TraceLog
from npusim.units import COUNTERS

TRACE_COLUMNS = ("core", "unit", "index", "mnemonic", "start", "end", "bytes", "macs", "stall",
                 "dispatched", "stall_token", "stall_dram", "stall_queue", "stall_barrier")
CAUSE_COLUMNS = ("stall_token", "stall_dram", "stall_queue", "stall_barrier")
LAYER_TID = 1000  # the thread id of a core's layer track in the Chrome trace


def unit_counters(system, cycles: int) -> dict[str, dict[str, int]]:
    """{"core0.dma0": {"busy", "idle", "stall_token", "stall_dram", "stall_queue",
    "stall_barrier", "instructions"}}; busy + idle + stalls == cycles for every unit."""
    out = {}
    for core in system.cores:
        for unit in core.all_units():
            c = dict(unit.counters)
            c["idle"] = cycles - sum(c[k] for k in COUNTERS)
            c["instructions"] = unit.work["instructions"]
            out[unit.full_name] = {k: c[k] for k in ("busy", "idle", *COUNTERS[1:], "instructions")}
    return out


def work_totals(system) -> dict:
    """MACs, SRAM bytes touched, vector element-ops and DMA bytes summed over every unit, and
    "sram": the SRAM bytes by buffer."""
    keys = ("macs", "sram_bytes", "vector_ops", "dram_bytes")
    totals = dict.fromkeys(keys, 0)
    sram: dict[str, int] = {}
    for core in system.cores:
        for unit in core.units.values():
            work = unit.work  # summed when asked (Unit.work)
            for k in keys:
                totals[k] += work[k]
            for buf, n in unit.sram_bytes.items():
                sram[buf] = sram.get(buf, 0) + n
    totals["sram"] = sram
    return totals


def trace_frame(rows: list | None, queue_stalls: list | None = None) -> pd.DataFrame:
    """The per-instruction trace: one row per executed instruction, sorted by start cycle.

    rows: the run's npusim.tracelog.TraceLog, or tuples of RECORDED; queue_stalls: (core,
    index, from, to) of each dispatch that waited for a full queue, which becomes that
    instruction's stall_queue."""
    if isinstance(rows, TraceLog):
        df = pd.DataFrame(rows.columns(), columns=list(RECORDED))
        rows = len(rows)
    else:
        df = pd.DataFrame(rows or [], columns=list(RECORDED))
    df = df.astype({c: "int64" for c in RECORDED if c not in ("unit", "mnemonic")})
    df["stall"] = df["stall_token"] + df["stall_dram"] + df["stall_barrier"]
    df["stall_queue"] = np.zeros(len(df), np.int64)
    if queue_stalls and len(df):
        q = np.asarray(queue_stalls, np.int64)
        width = int(max(df["index"].max(), q[:, 1].max())) + 1
        waited = np.zeros((int(max(df["core"].max(), q[:, 0].max())) + 1) * width, np.int64)
        np.add.at(waited, q[:, 0] * width + q[:, 1], q[:, 3] - q[:, 2])
        df["stall_queue"] = waited[df["core"].to_numpy() * width + df["index"].to_numpy()]
    df = df[list(TRACE_COLUMNS)]
    if rows:
        df = df.sort_values(["start", "core", "index"], kind="stable").reset_index(drop=True)
    return df


def chrome_trace(df: pd.DataFrame, units: list[str], meta: dict | None = None,
                 layers: list | None = None) -> dict:
    """Chrome/Perfetto trace-event JSON: one process per core, one thread per unit; 1 us = 1 cycle.

    layers: (core, start, end, name) spans, drawn on a `layers` thread of their core above
    the units (npusim.flow gives the per-layer partition's spans, docs/layers.md)."""
    tids = {}
    events = []
    for name in units:  # "core0.dma0"
        core, unit = name.split(".", 1)
        pid = int(core[4:])
        tid = tids.setdefault(name, len([n for n in tids if n.startswith(core + ".")]))
        if tid == 0:
            events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                           "args": {"name": core}})
        events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                       "args": {"name": unit}})
        events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                       "args": {"sort_index": tid}})
    for row in df.itertuples(index=False):
        events.append({
            "ph": "X", "name": row.mnemonic, "cat": row.unit, "pid": int(row.core),
            "tid": tids[f"core{row.core}.{row.unit}"], "ts": int(row.start),
            "dur": int(row.end - row.start),
            "args": {"index": int(row.index), "bytes": int(row.bytes), "macs": int(row.macs),
                     "stall": int(row.stall), "dispatched": int(row.dispatched),
                     **{c: int(getattr(row, c)) for c in CAUSE_COLUMNS if getattr(row, c)}}})
    if layers:
        for core in sorted({c for c, *_ in layers}):
            tid = LAYER_TID  # beside the units' tids (0..), sorted above them
            events.append({"ph": "M", "name": "thread_name", "pid": core, "tid": tid,
                           "args": {"name": "layers"}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": core, "tid": tid,
                           "args": {"sort_index": -1}})
        events += [{"ph": "X", "name": name, "cat": "layer", "pid": core, "tid": LAYER_TID,
                    "ts": start, "dur": end - start, "args": {"layer": name}}
                   for core, start, end, name in layers]
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"time_unit": "1 us in the viewer = 1 NPU cycle", **(meta or {})}}
