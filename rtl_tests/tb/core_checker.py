"""Whole-program checker: the RTL core's trace, total cycles and final DRAM against npusim.simulate.

Produces one agreement row per instruction and one summary row per program; the first
divergence is the earliest (by model start cycle) instruction whose start or end differs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

INSTR_COLUMNS = ["program", "unit", "index", "mnemonic", "model_dispatched", "rtl_dispatched",
                 "model_start", "model_end", "rtl_start", "rtl_end", "model_cycles", "rtl_cycles",
                 "diff"]
PROGRAM_COLUMNS = ["program", "target", "instructions", "model_cycles", "rtl_cycles", "diff",
                   "trace_mismatches", "dram_bytes_differing", "first_divergence"]


def compare_traces(program: str, model_trace: pd.DataFrame,
                   rtl_rows: list[tuple[str, int, int, int]],
                   rtl_dispatched: dict[int, int]) -> tuple[pd.DataFrame, list[str]]:
    """Agreement rows (model order) and the mismatch texts, the first divergence first: the
    mismatch whose earliest differing event (dispatch, start, else end) happens first.

    rtl_rows are (unit, index, start, end); rtl_dispatched maps an index to the cycle its
    dispatch began (the model trace's `dispatched`)."""
    rtl = {(unit, index): (start, end) for unit, index, start, end in rtl_rows}
    rows, bad = [], []
    ordered = model_trace.sort_values(["start", "index"], kind="stable")
    for r in ordered.itertuples(index=False):
        key = (r.unit, int(r.index))
        ms, me, md = int(r.start), int(r.end), int(r.dispatched)
        rs, re = rtl.pop(key, (None, None))
        rd = rtl_dispatched.get(key[1])
        rows.append({"program": program, "unit": r.unit, "index": key[1],
                     "mnemonic": r.mnemonic, "model_dispatched": md, "rtl_dispatched": rd,
                     "model_start": ms, "model_end": me,
                     "rtl_start": rs, "rtl_end": re, "model_cycles": me - ms,
                     "rtl_cycles": None if rs is None else re - rs,
                     "diff": None if rs is None else (re - rs) - (me - ms)})
        where = f"[{key[1]}] {r.mnemonic} on {r.unit}: model {ms}..{me}"
        if rs is None:
            bad.append((ms, key[1], f"{where}, never ran in the RTL"))
        elif rd != md:
            bad.append((md if rd is None else min(md, rd), key[1],
                        f"{where}, dispatch began at {md} in the model, at {rd} in the RTL"))
        elif (rs, re) != (ms, me):
            when = min(ms, rs) if rs != ms else min(me, re)
            bad.append((when, key[1], f"{where}, RTL {rs}..{re} "
                                      f"(start {rs - ms:+d}, end {re - me:+d})"))
    for (unit, index), (rs, re) in rtl.items():
        bad.append((rs, index, f"[{index}] on {unit}: RTL {rs}..{re}, not in the model"))
    bad.sort(key=lambda b: (b[0], b[1]))
    return pd.DataFrame(rows, columns=INSTR_COLUMNS), [text for _, _, text in bad]


def compare_dram(model_bytes: np.ndarray, rtl_bytes: np.ndarray) -> tuple[int, str | None]:
    """(bytes differing, text of the first) over the RTL's DRAM; the model's DRAM past it must
    be untouched (all zero), or the RTL's smaller DRAM would hide a difference."""
    n = rtl_bytes.size
    beyond = np.flatnonzero(model_bytes[n:])
    if beyond.size:
        addr = n + int(beyond[0])
        return int(beyond.size), (f"the model wrote DRAM byte {addr:#x}, past the RTL's "
                                  f"{n} bytes; hint: raise DRAM_BYTES of the core")
    diff = np.flatnonzero(model_bytes[:n] != rtl_bytes)
    if not diff.size:
        return 0, None
    a = int(diff[0])
    return int(diff.size), (f"DRAM byte {a:#x}: model {int(model_bytes[a])}, "
                            f"RTL {int(rtl_bytes[a])} ({diff.size} bytes differ)")


def program_row(program: str, target: str, trace: pd.DataFrame, model_cycles: int,
                rtl_cycles: int | None, mismatches: list[str], dram_diff: int) -> dict:
    return {"program": program, "target": target, "instructions": len(trace),
            "model_cycles": model_cycles, "rtl_cycles": rtl_cycles,
            "diff": None if rtl_cycles is None else rtl_cycles - model_cycles,
            "trace_mismatches": len(mismatches), "dram_bytes_differing": dram_diff,
            "first_divergence": mismatches[0] if mismatches else ""}


def save_agreement(directory: str | Path, program: str, table: pd.DataFrame, row: dict) -> None:
    """<program>.instructions.csv and <program>.program.csv under `directory` (rewritten)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    table.to_csv(directory / f"{program}.instructions.csv", index=False)
    pd.DataFrame([row], columns=PROGRAM_COLUMNS).to_csv(directory / f"{program}.program.csv",
                                                        index=False)


def load_agreement(directory: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(program rows, instruction rows) of every program saved under `directory`."""
    directory = Path(directory)
    programs = [pd.read_csv(p) for p in sorted(directory.glob("*.program.csv"))]
    instrs = [pd.read_csv(p) for p in sorted(directory.glob("*.instructions.csv"))]
    return (pd.concat(programs, ignore_index=True) if programs else
            pd.DataFrame(columns=PROGRAM_COLUMNS),
            pd.concat(instrs, ignore_index=True) if instrs else pd.DataFrame(columns=INSTR_COLUMNS))
