"""Agreement summary of the RTL core vs npusim: one row per whole program, one per mnemonic.

    python -m rtl_tests.tb.core_summary [--run] [--target npu-tiny]

--run first runs every program of tb/core_programs.py on the core (in one simulator process);
without it, the rows the last test run saved are summarized."""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from rtl_tests.tb.core_checker import load_agreement
from rtl_tests.tb.core_programs import PROGRAMS
from rtl_tests.tb.core_runner import core_build_dir, run_core


def by_mnemonic(instrs: pd.DataFrame) -> pd.DataFrame:
    """Per mnemonic: trace rows, rows whose start or end differ, the largest cycle difference."""
    df = instrs.copy()
    df["differs"] = (df.model_start != df.rtl_start) | (df.model_end != df.rtl_end)
    df["abs_diff"] = df["diff"].abs()
    return (df.groupby(["unit", "mnemonic"], sort=True)
              .agg(rows=("index", "size"), differing=("differs", "sum"),
                   max_abs_cycle_diff=("abs_diff", "max"))
              .reset_index())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rtl_tests.tb.core_summary", description=__doc__)
    ap.add_argument("--target", default="npu-tiny")
    ap.add_argument("--run", action="store_true", help="run every program on the core first")
    args = ap.parse_args(argv)
    directory = core_build_dir(args.target) / "agreement"
    if args.run:
        for old in directory.glob("*.csv"):
            old.unlink()
        outcome = run_core(args.target, ["run_programs"], programs=list(PROGRAMS),
                           agreement=directory)
        if outcome.get("run_programs"):  # the rows are saved all the same; shown below
            print(outcome["run_programs"], file=sys.stderr)
    programs, instrs = load_agreement(directory)
    if programs.empty:
        print(f"no agreement rows under {directory}; run with --run", file=sys.stderr)
        return 1
    with pd.option_context("display.width", 140, "display.max_colwidth", 60):
        print(programs.drop(columns=["first_divergence"]).to_string(index=False))
        print()
        print(by_mnemonic(instrs).to_string(index=False))
        for r in programs.itertuples():
            if isinstance(r.first_divergence, str) and r.first_divergence:
                print(f"\n{r.program}: first divergence: {r.first_divergence}")
    clean = (programs["diff"] == 0) & (programs.trace_mismatches == 0) & \
            (programs.dram_bytes_differing == 0)
    return 0 if clean.all() else 1


if __name__ == "__main__":
    sys.exit(main())
