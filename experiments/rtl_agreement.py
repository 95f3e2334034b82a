"""RTL vs npusim agreement: cycles of every instruction the unit regressions ran, by class.

    python -m experiments.rtl_agreement            # run rtl_tests/test_{matrix,vector,dma}.py
    python -m experiments.rtl_agreement --no-run   # summarize the last run's rows

Each cocotb test appends (unit, target, class, mnemonic, model_cycles, rtl_cycles, diff) to
sim_build/rtl_tests/<unit>-<target>/agreement.csv; this writes the per-class summary to
experiments/results/rtl_agreement.csv and prints it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pandas as pd

from npusim.hw.rtl_params import UNITS

ROOT = Path(__file__).resolve().parents[1]
ROWS = ROOT / "sim_build" / "rtl_tests"
OUT = ROOT / "experiments" / "results" / "rtl_agreement.csv"
TESTS = [f"rtl_tests/test_{unit}.py" for unit in UNITS]


def collect(rows_dir: Path = ROWS) -> pd.DataFrame:
    files = sorted(p for unit in UNITS for p in rows_dir.glob(f"{unit}-*/agreement.csv"))
    if not files:
        raise FileNotFoundError(f"no agreement rows under {rows_dir}; run the RTL regression "
                                "(python -m experiments.rtl_agreement)")
    return pd.concat([pd.read_csv(f) for f in files], ignore_index=True)


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """Per unit and instruction class: instructions, mnemonics, cycles, mismatches, worst diff."""
    g = rows.groupby(["unit", "class"])
    out = g.agg(instructions=("diff", "size"),
                mnemonics=("mnemonic", lambda m: " ".join(sorted(set(m)))),
                targets=("target", "nunique"),
                model_cycles=("model_cycles", "sum"), rtl_cycles=("rtl_cycles", "sum"),
                mismatches=("diff", lambda d: int((d != 0).sum())),
                max_abs_diff=("diff", lambda d: int(d.abs().max())))
    return out.reset_index()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-run", action="store_true", help="only summarize the saved rows")
    args = ap.parse_args(argv)
    if not args.no_run:
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", *TESTS], cwd=ROOT)
        if run.returncode:
            print("the RTL regression failed; summarizing what it recorded", file=sys.stderr)
    summary = summarize(collect())
    OUT.parent.mkdir(parents=True, exist_ok=True)
    summary.to_csv(OUT, index=False)
    print(summary.to_string(index=False))
    return 0 if summary["mismatches"].sum() == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
