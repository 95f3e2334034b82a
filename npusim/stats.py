"""Results of a run: per-unit counters, energy, the trace DataFrame and its Chrome/Perfetto JSON.

Every counter is defined in docs/counters.md; keep the two in step.
"""

from __future__ import annotations

import pandas as pd

from npusim.units import COUNTERS

TRACE_COLUMNS = ("core", "unit", "index", "mnemonic", "start", "end", "bytes", "macs", "stall",
                 "dispatched")


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


def work_totals(system) -> dict[str, int]:
    """MACs, SRAM bytes touched, vector element-ops and DMA bytes summed over every unit."""
    keys = ("macs", "sram_bytes", "vector_ops", "dram_bytes")
    totals = dict.fromkeys(keys, 0)
    for core in system.cores:
        for unit in core.units.values():
            for k in keys:
                totals[k] += unit.work[k]
    return totals


def energy_pj(target, work: dict, dram_bytes: int, cycles: int) -> dict[str, float]:
    """Per-action energy from the Target's table, plus static power over the run's time."""
    parts = {
        "mac": work["macs"] * target.energy_mac_pj,
        "sram": work["sram_bytes"] * target.energy_sram_byte_pj,
        "dram": dram_bytes * target.energy_dram_byte_pj,
        "vector": work["vector_ops"] * target.energy_vector_op_pj,
        # static_mw is per core: mW x cycles / MHz = 1e-3 W x 1e-6 s = 1e-9 J = 1e3 pJ.
        "static": target.static_mw * target.num_cores * cycles * 1e3 / target.freq_mhz,
    }
    parts["total"] = sum(parts.values())
    return parts


def trace_frame(rows: list | None) -> pd.DataFrame:
    """The per-instruction trace: one row per executed instruction, sorted by start cycle."""
    df = pd.DataFrame(rows or [], columns=list(TRACE_COLUMNS))
    if rows:
        df = df.sort_values(["start", "core", "index"], kind="stable").reset_index(drop=True)
    return df.astype({c: "int64" for c in TRACE_COLUMNS if c not in ("unit", "mnemonic")})


def chrome_trace(df: pd.DataFrame, units: list[str], meta: dict | None = None) -> dict:
    """Chrome/Perfetto trace-event JSON: one process per core, one thread per unit; 1 us = 1 cycle."""
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
                     "stall": int(row.stall), "dispatched": int(row.dispatched)}})
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"time_unit": "1 us in the viewer = 1 NPU cycle", **(meta or {})}}
