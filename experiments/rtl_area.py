"""Area of the RTL units: the Yosys synthesis sweep that writes the cell-count table, and the
fit of the area model to it.

    python -m experiments.rtl_area                 # the default sweep -> npusim/hw/rtl_area.csv
    python -m experiments.rtl_area --target "npu -array=32x32 -vector-lanes=32"   # add a Target
    python -m experiments.rtl_area --fit           # synthesize FIT_GRID, fit -> area_fit.json

Each unit is synthesized with `synth -top <unit>` (hierarchical: a PE or a vector lane is
synthesized once and counted per instance) into Yosys's internal gate library, no cell library,
no SRAM macros: the buffers are not part of any unit. `--fit` converts each configuration's
cells to um^2 with the Nangate45 areas of npusim/hw/cell_lib.py, fits every module's area
terms (npusim.hw.area.FEATURES) by least squares on relative error, and writes the coefficients,
the grid and every residual to npusim/hw/area_fit.json, which npusim.hw.area's area_mm2(target)
reads (docs/energy.md).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from npusim.hw.area import CSV, PARAM_COLUMNS, config_text
from npusim.hw.area import RAW_MATRIX_UNITS
from npusim.hw.rtl_params import AREA_SOURCES, MATRIX_ENGINES, UNIT_SOURCES, UNIT_TOPS, unit_params

ROOT = Path(__file__).resolve().parents[1]
RTL = ROOT / "rtl"

# The sweep, as Targets: each unit's HDL parameters come from them (npusim.hw.rtl_params).
SWEEP = {
    "matrix": ["npu -array=4x4", "npu -array=8x8", "npu -array=16x16"],
    "vector": ["npu -vector-lanes=4", "npu -vector-lanes=16", "npu -vector-lanes=64"],
    "dma": ["npu-tiny", "npu-edge", "npu-server"],
    "matrix_os": ["npu -array=4x4 -dataflow=os", "npu -array=8x8 -dataflow=os",
                  "npu -array=16x16 -dataflow=os"],
}
# The raw table's units: the RTL units, and the output-stationary matrix engine (tb_matrix's
# OS=1) as "matrix_os", with the matrix unit's sources and HDL parameters.
RAW_TOPS = {**UNIT_TOPS, "matrix_os": MATRIX_ENGINES["os"]}
RAW_SOURCES = {**UNIT_SOURCES, "matrix_os": UNIT_SOURCES["matrix"]}
TIMEOUT_S = 900

# The area model's fitting grid: HDL parameters per module (npusim.hw.rtl_params.AREA_SOURCES).
# Small on purpose (Yosys time, docs/energy.md); the out-of-grid check is
# tests/npusim/hw/test_hw_area.py. Parameters a module has but the grid leaves out keep their
# RTL defaults (AW=20, IW=10, SW=5).
_MATRIX_GRID = [{"R": r, "C": c} for r, c in
                ((4, 4), (8, 8), (16, 16), (32, 32), (4, 16), (16, 4), (32, 8), (8, 32))]
FIT_GRID = {
    # and each shape again with two weight banks per PE (-weight-buffers=2)
    "matrix_unit": _MATRIX_GRID + [{**p, "WB": 2} for p in _MATRIX_GRID],
    "matrix_unit_os": _MATRIX_GRID,  # the same points: ws and os compare at every grid size
    "vector_unit": [{"L": lanes, "P": p} for lanes, p in
                    ((4, 4), (16, 4), (64, 4), (8, 2), (8, 8), (32, 6))],
    "dma_engine": [{"BW": bw, "SETUP": s, "PAD_LANES": f} for bw, s, f in
                   ((4, 2, 16), (16, 8, 16), (64, 8, 16), (8, 4, 4), (32, 8, 32), (16, 8, 64))],
    "dispatcher": [{"NU": n} for n in (3, 4, 6, 10)],
    "unit_queue": [{"Q": q} for q in (2, 4, 8, 16, 32)],
    "semaphores": [{"NSEM": n, "NU": u} for n, u in ((8, 3), (32, 3), (8, 6), (16, 4), (32, 6))],
    # the depthwise mode's unit (R x C input lanes: Yosys time grows fast, so small arrays)
    "dwconv_unit": [{"R": r, "C": c} for r, c in ((4, 4), (8, 8), (4, 8), (8, 4), (6, 6))],
}

_CELLS = re.compile(r"^\s+Number of cells:\s+(\d+)", re.M)
_TRANSISTORS = re.compile(r"Estimated number of transistors:\s+(\d+)")
_CELL_TYPE = re.compile(r"^\s+(\$_\w+_)\s+(\d+)", re.M)


def parse_stat(text: str) -> dict:
    """Totals of the whole design from `stat -tech cmos` (its last, hierarchy-wide block)."""
    total = text.split("=== design hierarchy ===")[-1]
    cells = _CELLS.findall(total)
    if not cells:
        raise ValueError("no 'Number of cells' in the Yosys stat output")
    out = {"cells": int(cells[-1])}
    transistors = _TRANSISTORS.findall(total)
    if transistors:
        out["transistors"] = int(transistors[-1])
    # per-type counts of the design block (the flat list follows the last 'Number of cells')
    tail = total[total.rfind("Number of cells"):]
    out.update({f"cell_{name.strip('$_')}": int(n) for name, n in _CELL_TYPE.findall(tail)})
    return out


_INCLUDE = re.compile(rb'^\s*`include\s+"([^"]+)"', re.M)
ISA_HEADER = "npu_isa.vh"


def rtl_headers(files: list[str]) -> list[str]:
    """The rtl/ headers these files `include, directly or through another header, sorted,
    npu_isa.vh left out (rtl_digest)."""
    seen: set[str] = set()
    todo = list(files)
    while todo:
        for name in _INCLUDE.findall((RTL / todo.pop()).read_bytes()):
            name = name.decode()
            if name != ISA_HEADER and name not in seen:
                seen.add(name)
                todo.append(name)
    return sorted(seen)


def rtl_digest(files: list[str]) -> str:
    """sha256 (16 hex digits) of these rtl/ files, in order, then of the rtl/ headers they
    include (port lists, shared decode: rtl_headers), sorted: which RTL a synthesis row is of.
    npu_isa.vh is left out: every spec edit regenerates it, moving decode by a few cells. A
    module without headers of its own has the digest of its files alone."""
    h = hashlib.sha256()
    for f in [*files, *rtl_headers(files)]:
        h.update(f.encode() + b"\0" + (RTL / f).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def synthesize(unit: str, params: dict, timeout_s: int = TIMEOUT_S) -> dict:
    """Run Yosys on one unit ("matrix", "vector", "dma") or area module ("matrix_unit", ...,
    npusim.hw.rtl_params.AREA_SOURCES) with `params`; return cells, transistors, per-type
    counts, seconds and the digest of the sources."""
    if shutil.which("yosys") is None:
        raise RuntimeError("yosys is not installed (Debian: apt-get install yosys)")
    if unit in RAW_TOPS:
        top, files = RAW_TOPS[unit], RAW_SOURCES[unit]
    elif unit in AREA_SOURCES:
        top, files = unit, AREA_SOURCES[unit]
    else:
        raise KeyError(f"unknown unit or module '{unit}'; known: "
                       f"{', '.join([*RAW_TOPS, *AREA_SOURCES])}")
    sources = " ".join(str(RTL / f) for f in files)
    chparam = " ".join(f"-set {k} {v}" for k, v in params.items())
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        stat = Path(tmp) / "stat.txt"
        script = (f"read_verilog -I{RTL} {sources}; chparam {chparam} {top}; "
                  f"synth -top {top}; tee -q -o {stat} stat -tech cmos")
        try:
            run = subprocess.run(["yosys", "-q", "-p", script], capture_output=True, text=True,
                                 timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"yosys on {unit} {params} did not finish in {timeout_s} s; "
                               "raise --timeout or drop the configuration") from None
        if run.returncode:
            raise RuntimeError(f"yosys failed on {unit} {params}:\n{run.stderr[-2000:]}")
        text = stat.read_text()
    return {**parse_stat(text), "seconds": round(time.monotonic() - start, 1),
            "rtl_sha256": rtl_digest(files)}


def run_sweep(jobs: list[tuple], timeout_s: int) -> pd.DataFrame:
    """Synthesize each (unit, Target) or (module, {param: value}) job; one row per success."""
    rows = []
    for unit, target in jobs:
        params = dict(target) if isinstance(target, dict) else \
            unit_params("matrix" if unit in RAW_MATRIX_UNITS.values() else unit, target)
        if isinstance(target, dict):
            target = ""
        print(f"synthesizing {RAW_TOPS.get(unit, unit)} {config_text(params)} ...",
              file=sys.stderr, flush=True)
        try:
            result = synthesize(unit, params, timeout_s)
        except RuntimeError as e:  # report and go on: one slow configuration must not lose the rest
            print(f"  skipped: {e}", file=sys.stderr)
            continue
        rows.append({"unit": unit, "config": config_text(params), "target": target, **params,
                     **result})
    return pd.DataFrame(rows)


def save(table: pd.DataFrame, path: Path = CSV) -> pd.DataFrame:
    """Merge into the CSV: a configuration synthesized again replaces its old row."""
    if path.exists():
        old = pd.read_csv(path)
        keep = ~old.set_index(["unit", "config"]).index.isin(table.set_index(["unit", "config"]).index)
        table = pd.concat([old[keep], table], ignore_index=True)
    lead = [c for c in ["unit", "config", "target", *PARAM_COLUMNS, "cells", "transistors",
                        "seconds", "rtl_sha256"] if c in table]
    table = table[lead + sorted(c for c in table.columns if c not in lead)]
    path.parent.mkdir(parents=True, exist_ok=True)
    table.sort_values(["unit", "cells"]).to_csv(path, index=False)
    return table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--unit", choices=list(SWEEP), action="append",
                    help="sweep only these units (default: all)")
    ap.add_argument("--target", action="append", default=[],
                    help="synthesize every unit of this Target instead of the sweep")
    ap.add_argument("--timeout", type=int, default=TIMEOUT_S, help="seconds per synthesis")
    ap.add_argument("--fit", action="store_true",
                    help="synthesize the fitting grid (configurations not yet in the CSV) and "
                         "write the area model, npusim/hw/area_fit.json")
    ap.add_argument("--resynth", action="store_true",
                    help="with --fit: synthesize every grid configuration again")
    ap.add_argument("--module", choices=list(FIT_GRID), action="append",
                    help="with --fit --resynth: synthesize again only these modules' grids (the "
                         "ones whose rtl/ sources changed); the fit is of every module")
    args = ap.parse_args(argv)
    if args.fit:
        from experiments.area_fit import fit_and_write
        table = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame(columns=["unit", "config"])
        have = set(zip(table["unit"], table["config"]))
        for module, grid in FIT_GRID.items():  # saved per module: a long run keeps what it did
            again = args.resynth and (not args.module or module in args.module)
            jobs = [(module, p) for p in grid
                    if again or (module, config_text(p)) not in have]
            if jobs:
                table = save(run_sweep(jobs, args.timeout))
        print(fit_and_write(table, FIT_GRID))
        return 0
    if args.target:
        from isa.target import Target
        jobs = []
        for t in args.target:  # the matrix engine of the Target's dataflow
            raw = {"matrix": RAW_MATRIX_UNITS[Target.create(t).dataflow]}
            units = args.unit or [u for u in SWEEP if u not in RAW_MATRIX_UNITS.values()]
            jobs += [(raw.get(u, u), t) for u in dict.fromkeys(units)]
    else:
        jobs = [(u, t) for u in (args.unit or SWEEP) for t in SWEEP[u]]
    table = save(run_sweep(jobs, args.timeout))
    cols = ["unit", "config", "cells", "transistors", "seconds"]
    print(table[cols].to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
