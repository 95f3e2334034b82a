"""Area of an npu Target in mm^2 at 45 nm: logic from a model fitted to Yosys synthesis of the
RTL (area_fit.json), SRAM buffers from a per-KiB density; and the raw Yosys cell counts.

`area_mm2(target)` and `area_breakdown(target)` (mm^2 by component) price any npu Target; the
model, its sources and its limits are docs/energy.md. `rtl_area(unit, **params)` and
`core_area(target)` look up the generic-gate cell counts of configurations synthesized
beforehand (rtl_area.csv, written by experiments/rtl_area.py); cells rank configurations but are
not mm^2 until priced by npusim.hw.cell_lib."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from isa.timing import depthwise_cols
from npusim.hw.rtl_params import MATRIX_AREA_MODULES, UNITS, area_params, unit_params

CSV = Path(__file__).with_name("rtl_area.csv")
FIT = Path(__file__).with_name("area_fit.json")
PARAM_COLUMNS = ["R", "C", "WB", "L", "P", "BW", "SETUP", "PAD_LANES", "Q", "NU", "NSEM"]
SWEEP_HINT = "python -m experiments.rtl_area --target '<a target with it>'"
FIT_HINT = "python -m experiments.rtl_area --fit"

def _b2(params: dict) -> int:
    """Weight banks past the first of a matrix unit's PEs (its WB parameter, default 1)."""
    return params.get("WB", 1) - 1


# Each module's area terms: the fit finds one um^2 coefficient per term, each >= 0 but the
# constant (experiments/area_fit.py), so no parameter shrinks a module. The matrix unit has
# R*C PEs, input skew registers O(R^2), output de-skew O(C^2) and per-lane address logic
# O(R + C); the output-stationary one R*C accumulating PEs and the R-row readout mux, input
# skew O(R^2), weight skew O(C^2), and a row lane's im2col (a pixel's address: multipliers)
# much larger than a column lane's weight address, so R and C are terms of their own; a vector
# unit is L lanes plus P pipeline stages of L lanes; a DMA channel has two address chains of
# BW byte lanes and a PAD_LANES-wide zero-fill walker.
FEATURES = {
    # its second weight bank (WB = 2, -weight-buffers=2; B2 = WB - 1): per PE a second weight
    # register, the load-wave and bank-bit flops and two bank muxes (R*C), the bank bit's
    # row skew (R^2), the weight lanes' column skew (C^2), the load walk and sequencers (1)
    "matrix_unit": (("1", lambda p: 1), ("R*C", lambda p: p["R"] * p["C"]),
                    ("R^2", lambda p: p["R"] ** 2), ("C^2", lambda p: p["C"] ** 2),
                    ("R+C", lambda p: p["R"] + p["C"]),
                    ("B2", lambda p: _b2(p)), ("B2*R*C", lambda p: _b2(p) * p["R"] * p["C"]),
                    ("B2*R^2", lambda p: _b2(p) * p["R"] ** 2),
                    ("B2*C^2", lambda p: _b2(p) * p["C"] ** 2)),
    "matrix_unit_os": (("1", lambda p: 1), ("R*C", lambda p: p["R"] * p["C"]),
                       ("R^2", lambda p: p["R"] ** 2), ("C^2", lambda p: p["C"] ** 2),
                       ("R", lambda p: p["R"]), ("C", lambda p: p["C"])),
    "vector_unit": (("1", lambda p: 1), ("L", lambda p: p["L"]), ("P", lambda p: p["P"]),
                    ("L*P", lambda p: p["L"] * p["P"])),
    "dma_engine": (("1", lambda p: 1), ("BW", lambda p: p["BW"]),
                   ("PAD_LANES", lambda p: p["PAD_LANES"])),
    "dispatcher": (("1", lambda p: 1), ("NU", lambda p: p["NU"])),
    "unit_queue": (("1", lambda p: 1), ("Q", lambda p: p["Q"])),
    "semaphores": (("1", lambda p: 1), ("NSEM", lambda p: p["NSEM"]), ("NU", lambda p: p["NU"]),
                   ("NSEM*NU", lambda p: p["NSEM"] * p["NU"])),
    # the depthwise mode's unit: R*C PEs with their input lanes (address adder, in-tile check),
    # the output de-skew O(C^2), the walker's (R + C - 1)-deep history and the tap chain O(R + C)
    "dwconv_unit": (("1", lambda p: 1), ("R*C", lambda p: p["R"] * p["C"]),
                    ("C^2", lambda p: p["C"] ** 2), ("R+C", lambda p: p["R"] + p["C"])),
}

# SRAM at 45 nm: the 0.346 um^2 6T bit cell of Intel's 45 nm process (K. Mistry et al., "A 45nm
# Logic Technology with High-k+Metal Gate Transistors, Strained Silicon, 9 Cu Interconnect
# Layers, 193nm Dry Patterning, and 100% Pb-free Packaging", IEDM 2007), divided by an assumed
# 70% array efficiency (bit cells / macro area; the rest is decoders, sense amplifiers, I/O).
SRAM_BITCELL_UM2 = 0.346
SRAM_ARRAY_EFFICIENCY = 0.70
SRAM_MM2_PER_KIB = 8 * 1024 * SRAM_BITCELL_UM2 / SRAM_ARRAY_EFFICIENCY / 1e6

# fp16 PEs (the RTL is int8 only): the int8 PE (ws or os alike) with its 8-bit multiplier and
# 32-bit adder replaced by a 16-bit FP multiplier and a 32-bit FP adder (fp32 accumulation), at
# the 45 nm areas of M. Horowitz, "Computing's energy problem (and what we can do about it)",
# ISSCC 2014: 8b mult 282, 32b add 137, 16b FP mult 1640, 32b FP add 4184 um^2.
FP16_PE_EXTRA_UM2 = (1640 + 4184) - (282 + 137)

# The array's depthwise mode (-depthwise-mode=1, the dwconv instruction) is a unit of its own in
# the RTL (npu_core's matrix_unit_dw runs dwconv_unit beside matrix_unit: its own R x C PEs with
# per-PE input lanes), priced by its own fit; an output-stationary array has none.
DEPTHWISE_MODULE = "dwconv_unit"

# the raw table's matrix engine of each dataflow (experiments/rtl_area.py's "matrix_os" is
# matrix_engine_os)
RAW_MATRIX_UNITS = {"ws": "matrix", "os": "matrix_os"}

COMPONENTS = ("matrix", "vector", "dma", "dispatch")  # then sram_<buffer> for each buffer


@lru_cache(maxsize=None)
def load_fit(path: Path = FIT) -> dict:
    """The fitted area model (experiments/rtl_area.py --fit writes it)."""
    if not Path(path).exists():
        raise FileNotFoundError(f"{path} does not exist; run `{FIT_HINT}`")
    fit = json.loads(Path(path).read_text())
    for module, terms in FEATURES.items():
        have = fit["modules"].get(module, {}).get("terms")
        if have != [name for name, _ in terms]:
            raise ValueError(f"{path}: module {module} has terms {have}, the model "
                             f"{[name for name, _ in terms]}; hint: run `{FIT_HINT}`")
    return fit


def reload_fit() -> None:
    """Forget the loaded fit and every area priced with it (after --fit rewrote the file)."""
    load_fit.cache_clear()
    _core_parts.cache_clear()


def module_um2(module: str, params: dict, fit: dict | None = None) -> float:
    """Fitted standard-cell um^2 of one RTL module with these HDL parameters."""
    fit = fit or load_fit()
    coef = fit["modules"][module]["coef_um2"]
    return sum(c * f(params) for c, (_, f) in zip(coef, FEATURES[module]))


def core_breakdown_mm2(target) -> dict[str, float]:
    """mm^2 of one core by component: matrix (the unit of the Target's dataflow), vector, dma
    (all channels), dispatch, sram_*."""
    from isa.target import Target
    return dict(_core_parts(Target.create(target)))


@lru_cache(maxsize=1024)  # every simulate() prices its Target's leakage; a DSE reuses Targets
def _core_parts(t) -> tuple:
    fit = load_fit()
    matrix_module = MATRIX_AREA_MODULES[t.dataflow]  # the core has one matrix unit, its dataflow's
    um2 = {m: module_um2(m, area_params(m, t), fit) for m in FEATURES
           if (m not in MATRIX_AREA_MODULES.values() or m == matrix_module)
           and m != DEPTHWISE_MODULE}
    nu = area_params("dispatcher", t)["NU"]
    matrix = um2[matrix_module]
    if t.dtype == "fp16":
        matrix += FP16_PE_EXTRA_UM2 * t.array_rows * t.array_cols
    if depthwise_cols(t):  # the depthwise mode's unit beside the matrix unit
        matrix += module_um2(DEPTHWISE_MODULE, area_params(DEPTHWISE_MODULE, t), fit)
    parts = {
        "matrix": matrix / 1e6,
        "vector": um2["vector_unit"] / 1e6,
        "dma": t.dma_engines * um2["dma_engine"] / 1e6,
        # one dispatcher, a queue per unit, one semaphore bank
        "dispatch": (um2["dispatcher"] + nu * um2["unit_queue"] + um2["semaphores"]) / 1e6,
    }
    for b, nbytes in t.derived.buffer_bytes.items():
        parts[f"sram_{b}"] = nbytes / 1024 * SRAM_MM2_PER_KIB
    return tuple(parts.items())


def area_breakdown(target) -> dict[str, float]:
    """mm^2 by component for the whole Target (every core has its own units and buffers, so
    each component is num_cores times one core's); the values sum to area_mm2(target)."""
    from isa.target import Target
    t = Target.create(target)
    return {k: v * t.num_cores for k, v in core_breakdown_mm2(t).items()}


def area_mm2(target) -> float:
    """Total mm^2 at 45 nm: logic (standard cells) plus SRAM, all cores; no DRAM, no PHY."""
    return sum(area_breakdown(target).values())


# ---- raw cell counts (the table experiments/rtl_area.py synthesizes) ---------------------------

def config_text(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def rtl_area(unit: str, csv: Path = CSV, **params) -> int:
    """Generic-gate cells of `unit` ("matrix", "matrix_os", "vector", "dma", or an area-model
    module such as "matrix_unit") with these HDL parameters, e.g. rtl_area("matrix", R=8, C=8);
    parameters left out match any value."""
    import pandas as pd
    if not Path(csv).exists():
        raise FileNotFoundError(f"{csv} does not exist; run `python -m experiments.rtl_area`")
    table = pd.read_csv(csv)
    rows = table[table["unit"] == unit]
    for k, v in params.items():
        if k not in rows:
            have = [c for c in PARAM_COLUMNS if c in rows and rows[c].notna().any()]
            raise KeyError(f"{unit} has no parameter {k}; its parameters: {', '.join(have)}")
        rows = rows[rows[k] == v]
    if rows.empty:
        known = "; ".join(table.loc[table["unit"] == unit, "config"])
        raise KeyError(f"no area for {unit} {config_text(params)}; synthesized: {known or 'none'}; "
                       f"hint: {SWEEP_HINT}, or area_mm2(target) for any Target")
    if len(rows) > 1:
        raise KeyError(f"{len(rows)} {unit} configurations match {config_text(params)}: "
                       f"{'; '.join(rows['config'])}; give more parameters")
    return int(rows["cells"].iloc[0])


def core_area(target, csv: Path = CSV) -> dict:
    """Cells of one core's units for a Target: matrix (its dataflow's engine) + vector + one
    DMA per dma engine."""
    from isa.target import Target
    t = Target.create(target)
    raw = {"matrix": RAW_MATRIX_UNITS[t.dataflow]}
    parts = {u: rtl_area(raw.get(u, u), csv, **unit_params(u, t)) for u in UNITS}
    parts["dma"] *= t.dma_engines
    parts["total"] = sum(parts.values())
    return parts
