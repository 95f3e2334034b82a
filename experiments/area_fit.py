"""Fit of the area model: each module's synthesized cells priced at 45 nm, least squares on
relative error over the fitting grid, written to npusim/hw/area_fit.json (with the grid and
every residual). Run through `python -m experiments.rtl_area --fit`."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from isa.files import write_atomic
from npusim.hw import cell_lib
from npusim.hw.area import FEATURES, FIT, config_text, reload_fit


def row_um2(row: pd.Series) -> float:
    """Standard-cell um^2 of one synthesized configuration (its cell_<TYPE> counts)."""
    counts = {c[5:]: int(row[c]) for c in row.index if c.startswith("cell_") and pd.notna(row[c])}
    return cell_lib.cells_um2(counts)


def fit_module(module: str, rows: pd.DataFrame) -> dict:
    """Coefficients (um^2 per term, each >= 0 but the constant) minimizing the sum of squared
    relative errors."""
    terms = FEATURES[module]
    params = [{k: int(r[k]) for k in _param_names(r)} for _, r in rows.iterrows()]
    y = np.array([row_um2(r) for _, r in rows.iterrows()])
    x = np.array([[f(p) for _, f in terms] for p in params], dtype=float)
    if len(y) < len(terms):
        raise ValueError(f"{module}: {len(y)} synthesized configurations for {len(terms)} terms; "
                         "hint: synthesize the whole grid (--fit)")
    coef = _nonnegative_lstsq(x / y[:, None], np.ones(len(y)),
                              free=[name == "1" for name, _ in terms])
    fitted = x @ coef
    rel = fitted / y - 1
    grid = [{**p, "cells": int(r["cells"]), "um2": round(float(a), 1),
             "fit_um2": round(float(b), 1), "rel_err": round(float(e), 4)}
            for p, (_, r), a, b, e in zip(params, rows.iterrows(), y, fitted, rel)]
    return {"terms": [n for n, _ in terms], "coef_um2": [round(float(c), 4) for c in coef],
            "max_abs_rel_err": round(float(np.abs(rel).max()), 4),
            "rms_rel_err": round(float(np.sqrt((rel ** 2).mean())), 4), "grid": grid}


def _nonnegative_lstsq(a: np.ndarray, b: np.ndarray, free: list[bool]) -> np.ndarray:
    """Least squares with every coefficient >= 0 except the `free` ones (the constant): each
    term grows with its parameters, so a larger configuration is never priced smaller. Exact by
    trying every set of nonzero terms (at most 2^5 small solves): the best feasible one."""
    n = a.shape[1]
    best, best_res = None, np.inf
    for mask in range(1, 2 ** n):
        cols = [j for j in range(n) if mask >> j & 1]
        sub, *_ = np.linalg.lstsq(a[:, cols], b, rcond=None)
        if any(c < 0 and not free[j] for j, c in zip(cols, sub)):
            continue
        coef = np.zeros(n)
        coef[cols] = sub
        res = float(((a @ coef - b) ** 2).sum())
        if res < best_res - 1e-15:
            best, best_res = coef, res
    return best


def _param_names(row: pd.Series) -> list[str]:
    """The HDL parameters a row was synthesized with, from its config text "R=4 C=4"."""
    return [kv.split("=")[0] for kv in row["config"].split()]


def _one_rtl(module: str, rows: pd.DataFrame) -> str | None:
    """The digest of the RTL every grid row of `module` was synthesized from (rows of older
    tables have none); a grid of mixed RTL versions fits no single design."""
    if "rtl_sha256" not in rows:
        return None
    digests = sorted(set(rows["rtl_sha256"].dropna()))
    if len(digests) > 1 or (digests and rows["rtl_sha256"].isna().any()):
        raise ValueError(f"{module}: the grid was synthesized from {len(digests)} RTL versions "
                         f"({', '.join(digests)}, and undated rows); hint: run "
                         "`python -m experiments.rtl_area --fit --resynth`")
    return digests[0] if digests else None


def fit_and_write(table: pd.DataFrame, grid: dict, path=FIT) -> str:
    """Fit every module on its grid rows of `table`; write `path`; return a summary."""
    modules = {}
    for module, points in grid.items():
        wanted = [config_text(p) for p in points]
        rows = table[table["unit"] == module].drop_duplicates("config").set_index("config")
        missing = [c for c in wanted if c not in rows.index]
        if missing:
            raise ValueError(f"{module}: no synthesis of {'; '.join(missing)}; hint: run "
                             "`python -m experiments.rtl_area --fit`")
        modules[module] = fit_module(module, rows.loc[wanted].reset_index())  # grid order
        modules[module]["rtl_sha256"] = _one_rtl(module, rows.loc[wanted])
    data = {
        "about": "area model of the RTL modules: standard-cell um^2 = sum(coef_um2 * term), "
                 "fitted to Yosys synthesis (synth; stat) of rtl/ over the grid below; see "
                 "docs/energy.md",
        "node_nm": cell_lib.NODE_NM,
        "cell_library": cell_lib.LIBRARY,
        "cell_um2": cell_lib.NANGATE45_UM2,
        "fit": "least squares on relative error (rows weighted by 1/um2)",
        "regenerate": "python -m experiments.rtl_area --fit --resynth",
        "rtl_sha256": "per module: experiments.rtl_area.rtl_digest of the rtl/ files synthesized",
        "modules": modules,
    }
    write_atomic(path, json.dumps(data, indent=1) + "\n")
    reload_fit()
    lines = [f"{'module':<14} {'points':>6} {'max |err|':>9} {'rms err':>8}  coefficients (um^2)"]
    for m, d in modules.items():
        coef = ", ".join(f"{t}: {c:g}" for t, c in zip(d["terms"], d["coef_um2"]))
        lines.append(f"{m:<14} {len(d['grid']):>6} {d['max_abs_rel_err']:>9.2%} "
                     f"{d['rms_rel_err']:>8.2%}  {coef}")
    return "\n".join(lines) + f"\nwrote {path}"
