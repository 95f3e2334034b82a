"""npusim.hw.area: mm^2 for any npu Target, its breakdown, the shipped fit, and the fit against
Yosys on configurations outside its grid."""

import shutil

import pytest

from experiments.area_fit import row_um2
from experiments.rtl_area import FIT_GRID, rtl_digest, synthesize
from isa.target import Target
from npusim.hw.area import (CSV, FP16_PE_EXTRA_UM2, SRAM_MM2_PER_KIB, area_breakdown, area_mm2,
                            config_text, load_fit, module_um2)
from npusim.hw.cell_lib import cell_um2, cells_um2
from npusim.hw.rtl_params import AREA_SOURCES

FIT_ERROR = 0.10  # the fit's stated accuracy outside its grid (docs/energy.md)


def test_breakdown_names_every_component_and_sums_to_the_total():
    parts = area_breakdown("npu-edge")
    assert list(parts) == ["matrix", "vector", "dma", "dispatch", "sram_ibuf", "sram_wbuf",
                           "sram_abuf", "sram_obuf"]
    assert all(v > 0 for v in parts.values())
    assert sum(parts.values()) == pytest.approx(area_mm2("npu-edge"), rel=1e-12)


def test_sram_is_priced_per_kib():
    parts = area_breakdown("npu-edge")  # 128 / 128 / 256 / 64 KiB
    assert SRAM_MM2_PER_KIB == pytest.approx(8192 * 0.346 / 0.70 / 1e6)
    assert parts["sram_abuf"] == pytest.approx(256 * SRAM_MM2_PER_KIB)
    assert parts["sram_obuf"] == pytest.approx(64 * SRAM_MM2_PER_KIB)


@pytest.mark.parametrize("target", ["npu -array=32x32", "npu-edge -dram-bw=32",
                                    "npu -array=1x1 -vector-lanes=1 -ibuf-kb=1 -wbuf-kb=1 "
                                    "-abuf-kb=1 -obuf-kb=1 -dma-fill-lanes=1 -queue-depth=1 "
                                    "-semaphores=1",
                                    "npu -array=32x32 -vector-lanes=64 -dma-engines=8 "
                                    "-dram-bw=1024 -dma-fill-lanes=1024 -queue-depth=256"])
def test_any_target_has_an_area(target):
    """Configurations never synthesized (they raised KeyError in the cell-count table)."""
    parts = area_breakdown(target)
    assert all(v > 0 for v in parts.values()), parts


def test_cores_multiply_every_component():
    one, four = area_breakdown("npu-edge"), area_breakdown("npu-edge -num-cores=4")
    assert four == pytest.approx({k: 4 * v for k, v in one.items()})


def test_fp16_pes_are_larger():
    int8, fp16 = area_breakdown("npu-edge"), area_breakdown("npu-edge -dtype=fp16")
    assert fp16["matrix"] - int8["matrix"] == pytest.approx(256 * FP16_PE_EXTRA_UM2 / 1e6)
    assert {k: v for k, v in fp16.items() if k != "matrix"} == \
        {k: v for k, v in int8.items() if k != "matrix"}


def test_the_shipped_fit_covers_its_grid():
    fit = load_fit()
    assert fit["node_nm"] == 45
    for module, points in FIT_GRID.items():
        d = fit["modules"][module]
        assert [config_text({k: g[k] for k in p}) for g, p in zip(d["grid"], points)] == \
            [config_text(p) for p in points]
        assert d["max_abs_rel_err"] <= 0.05, module
        for g, p in zip(d["grid"], points):  # the stored residuals are the model's
            assert module_um2(module, p) == pytest.approx(g["fit_um2"], abs=0.5)


def test_cells_are_priced_by_type():
    assert cell_um2("NAND") == 0.798 and cell_um2("DFF_P") == 4.522
    assert cell_um2("DFFE_PP") == pytest.approx(4.522 + 1.862)        # flop + enable mux
    assert cell_um2("SDFFE_PP0P") == pytest.approx(4.522 + 1.862 + 1.064)
    assert cell_um2("DFF_PN0") == 5.320                               # async reset: DFFR
    assert cells_um2({"XOR": 2, "NOT": 1}) == pytest.approx(2 * 1.596 + 0.532)
    with pytest.raises(KeyError, match="no 45 nm area for the Yosys cell type 'FOO'"):
        cell_um2("FOO")


def _synthesized_um2(module: str, params: dict) -> float:
    """um^2 of the shipped synthesis (rtl_area.csv) of one grid configuration."""
    import pandas as pd
    table = pd.read_csv(CSV)
    rows = table[(table["unit"] == module) & (table["config"] == config_text(params))]
    assert len(rows) == 1, (module, params)
    return row_um2(rows.iloc[0])


def test_the_fit_reproduces_the_synthesized_grid_within_its_stated_error():
    """Every grid point's fitted um^2 against Yosys's cells priced (rtl_area.csv), within the
    module's max_abs_rel_err (area_fit.json, rounded to 4 digits)."""
    fit = load_fit()
    for module, points in FIT_GRID.items():
        err = fit["modules"][module]["max_abs_rel_err"]
        for p in points:
            assert module_um2(module, p) == pytest.approx(_synthesized_um2(module, p),
                                                          rel=err + 5e-5), (module, p)


def test_the_shipped_fit_is_of_the_current_rtl():
    """area_fit.json was fitted to synthesis of today's rtl/ (a changed unit moves its area)."""
    fit = load_fit()
    for module, files in AREA_SOURCES.items():
        assert fit["modules"][module]["rtl_sha256"] == rtl_digest(files), \
            f"{module}: rtl/ {', '.join(files)} changed since the area fit; hint: run " \
            "`python -m experiments.rtl_area --fit --resynth`"


@pytest.mark.parametrize("r,c", [(p["R"], p["C"]) for p in FIT_GRID["matrix_unit_os"]])
def test_os_and_ws_matrix_units_differ_as_synthesized(r, c):
    """-dataflow=os prices matrix_unit_os: at every grid size its fitted area differs from the
    weight-stationary unit's in the direction of the synthesis, by the synthesized amount
    within the two fits' stated errors; nothing else moves."""
    p = {"R": r, "C": c}
    ws, os_ = (area_breakdown(f"npu -array={r}x{c} -dataflow={d}") for d in ("ws", "os"))
    synth = {m: _synthesized_um2(m, p) for m in ("matrix_unit", "matrix_unit_os")}
    fit = load_fit()["modules"]
    # Yosys: os is larger on square and tall arrays (a pixel's im2col per row lane), smaller
    # on the wide 8x32 (the ws unit's output de-skew grows as C^2)
    bigger = (r, c) != (8, 32)
    assert (synth["matrix_unit_os"] > synth["matrix_unit"]) == bigger
    assert (os_["matrix"] > ws["matrix"]) == bigger
    slack = sum((fit[m]["max_abs_rel_err"] + 5e-5) * synth[m] for m in synth) / 1e6
    assert os_["matrix"] - ws["matrix"] == pytest.approx(
        (synth["matrix_unit_os"] - synth["matrix_unit"]) / 1e6, abs=slack)
    assert {k: v for k, v in os_.items() if k != "matrix"} == \
        {k: v for k, v in ws.items() if k != "matrix"}


def test_no_term_shrinks_a_module():
    """Every coefficient but the constant is >= 0 and every term grows with its parameters, so
    a larger array, more lanes, ... never price smaller (on either dataflow)."""
    for module, d in load_fit()["modules"].items():
        assert all(c >= 0 for t, c in zip(d["terms"], d["coef_um2"]) if t != "1"), module
    for d in ("ws", "os"):
        areas = [area_mm2(f"npu -array={a} -dataflow={d}") for a in ("1x31", "1x32", "2x32")]
        assert areas == sorted(areas) and len(set(areas)) == 3, (d, areas)


@pytest.mark.parametrize("tag", ["npu-tiny", "npu-edge", "npu-server"])
def test_the_tags_cost_more_on_the_output_stationary_array(tag):
    # the ws array itself, without the ws-only features a tag may add (weight banks, the
    # depthwise mode's unit), against the os array (which has none of them)
    ws = area_mm2(f"{tag} -dataflow=ws -weight-buffers=1 -depthwise-mode=0")
    os_ = area_mm2(f"{tag} -dataflow=os")
    assert os_ > ws
    assert area_mm2(tag) == area_mm2(f"{tag} -dataflow=ws") >= ws  # the tags are ws


def test_fp16_adds_the_same_per_pe_on_either_dataflow():
    for d in ("ws", "os"):
        int8, fp16 = (area_breakdown(f"npu-edge -dataflow={d}{x}") for x in ("", " -dtype=fp16"))
        assert fp16["matrix"] - int8["matrix"] == pytest.approx(256 * FP16_PE_EXTRA_UM2 / 1e6)


@pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys is not installed")
@pytest.mark.parametrize("module,params", [("matrix_unit", {"R": 6, "C": 6}),
                                           ("matrix_unit_os", {"R": 6, "C": 6}),
                                           ("unit_queue", {"Q": 12})])
def test_the_fit_predicts_configurations_outside_its_grid(module, params):
    assert params not in FIT_GRID[module]
    synth = synthesize(module, params, timeout_s=300)
    measured = cells_um2({k[5:]: n for k, n in synth.items() if k.startswith("cell_")})
    assert module_um2(module, params) == pytest.approx(measured, rel=FIT_ERROR)


def test_the_shipped_fit_is_what_the_script_makes_from_the_shipped_synthesis(tmp_path):
    """area_fit.json == experiments/rtl_area.py --fit run on rtl_area.csv (no synthesis)."""
    import json

    import pandas as pd

    from experiments.area_fit import fit_and_write
    from npusim.hw.area import CSV, FIT, reload_fit
    out = tmp_path / "fit.json"
    try:
        fit_and_write(pd.read_csv(CSV), FIT_GRID, out)
    finally:
        reload_fit()  # fit_and_write cleared the caches for its own file
    assert json.loads(out.read_text()) == json.loads(FIT.read_text())
