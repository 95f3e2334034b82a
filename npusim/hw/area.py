"""Relative area of the RTL units: Yosys generic-gate cell counts per configuration, looked up
in the table experiments/rtl_area.py synthesizes (rtl_area.csv, shipped with the package).

Cell counts rank configurations; they are not mm^2 (docs/rtl.md). The DSE reads them with
`rtl_area(unit, **params)` or `core_area(target)`."""

from __future__ import annotations

from pathlib import Path

from npusim.hw.rtl_params import UNITS, unit_params

CSV = Path(__file__).with_name("rtl_area.csv")
PARAM_COLUMNS = ["R", "C", "L", "P", "BW", "SETUP", "PAD_LANES"]
SWEEP_HINT = "python -m experiments.rtl_area --target '<a target with it>'"


def config_text(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def rtl_area(unit: str, csv: Path = CSV, **params) -> int:
    """Generic-gate cells of `unit` ("matrix", "vector", "dma") with these HDL parameters,
    e.g. rtl_area("matrix", R=8, C=8); parameters left out match any value."""
    import pandas as pd
    if not Path(csv).exists():
        raise FileNotFoundError(f"{csv} does not exist; run `python -m experiments.rtl_area`")
    table = pd.read_csv(csv)
    rows = table[table["unit"] == unit]
    for k, v in params.items():
        if k not in rows:
            raise KeyError(f"{unit} has no parameter {k}; its parameters: "
                           f"{', '.join(c for c in PARAM_COLUMNS if rows[c].notna().any())}")
        rows = rows[rows[k] == v]
    if rows.empty:
        known = "; ".join(table.loc[table["unit"] == unit, "config"])
        raise KeyError(f"no area for {unit} {config_text(params)}; synthesized: {known or 'none'}; "
                       f"hint: {SWEEP_HINT}")
    if len(rows) > 1:
        raise KeyError(f"{len(rows)} {unit} configurations match {config_text(params)}: "
                       f"{'; '.join(rows['config'])}; give more parameters")
    return int(rows["cells"].iloc[0])


def core_area(target, csv: Path = CSV) -> dict:
    """Cells of one core's units for a Target: matrix + vector + one DMA per dma engine."""
    from isa.target import Target
    t = Target.create(target)
    parts = {u: rtl_area(u, csv, **unit_params(u, t)) for u in UNITS}
    parts["dma"] *= t.dma_engines
    parts["total"] = sum(parts.values())
    return parts
