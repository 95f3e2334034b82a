"""Checker: RTL against the model, cycle counts and memory contents; reports the first divergence."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

AGREEMENT_COLUMNS = ["unit", "target", "class", "mnemonic", "model_cycles", "rtl_cycles", "diff"]


@dataclass(frozen=True)
class Mismatch:
    index: int       # instruction number within the run
    kind: str        # "cycles" or "data"
    text: str        # which instruction, what, expected vs got

    def __str__(self) -> str:
        return f"#{self.index} {self.kind}: {self.text}"


class Checker:
    """Collects one agreement row per instruction and every mismatch, in order."""

    def __init__(self, unit: str, target: str = ""):
        self.unit = unit
        self.target = target
        self.rows: list[dict] = []
        self.mismatches: list[Mismatch] = []

    def cycles(self, instr, model_cycles: int, rtl_cycles: int) -> bool:
        self.rows.append({"unit": self.unit, "target": self.target, "class": instr.spec.cls, "mnemonic": instr.mnemonic,
                          "model_cycles": int(model_cycles), "rtl_cycles": int(rtl_cycles),
                          "diff": int(rtl_cycles) - int(model_cycles)})
        if rtl_cycles != model_cycles:
            self.mismatches.append(Mismatch(len(self.rows) - 1, "cycles",
                                            f"{instr!r}: model {model_cycles} cycles, "
                                            f"RTL {rtl_cycles} (diff {rtl_cycles - model_cycles:+d})"))
            return False
        return True

    def data(self, instr, where: str, expected, actual) -> bool:
        """Compare one memory region element by element; report the first differing element."""
        expected, actual = np.asarray(expected, np.int64), np.asarray(actual, np.int64)
        bad = np.flatnonzero(expected != actual)
        if bad.size:
            i = int(bad[0])
            self.mismatches.append(Mismatch(
                max(len(self.rows) - 1, 0), "data",
                f"{instr!r}: {where}[{i}] model {expected[i]} RTL {actual[i]} "
                f"({bad.size} of {expected.size} elements differ)"))
            return False
        return True

    def report(self) -> str:
        if not self.mismatches:
            return f"{self.unit}: {len(self.rows)} instructions, RTL == model (bits and cycles)"
        lines = [f"{self.unit}: {len(self.mismatches)} mismatch(es) in {len(self.rows)} instructions;"
                 f" first: {self.mismatches[0]}"]
        lines += [f"  {m}" for m in self.mismatches[1:10]]
        return "\n".join(lines)

    def assert_clean(self) -> None:
        if self.mismatches:
            raise AssertionError(self.report())

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=AGREEMENT_COLUMNS)

    def save(self, path: str | Path) -> None:
        """Append this run's rows to a CSV (header written once)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.table().to_csv(path, mode="a", header=not path.exists(), index=False)
