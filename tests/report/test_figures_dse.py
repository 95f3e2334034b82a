"""Figure 7 on a small DSE trial table: one point or line per trial, the front, the labels."""

import math

import pandas as pd
import pytest
from report_data import ATTRIBUTES, OBJECTIVES
from figure_checks import valid_svg_png

from npusim import report
from npusim.report import fig_dse


def test_front_mask_keeps_the_non_dominated_ok_trials():
    df = pd.DataFrame({"status": ["ok", "ok", "ok", "ok", "infeasible"],
                       "a": [1.0, 2.0, 3.0, 2.5, 0.0], "b": [5.0, 2.0, 1.0, 3.0, 0.0]})
    assert report.front_mask(df, ["a", "b"]).tolist() == [True, True, True, False, False]
    assert report.front_mask(df, ["a", "b"], {"b": "maximize"}).tolist() == [
        True, False, False, False, False]


def test_pareto_fronts_has_a_panel_per_pair_with_every_trial(study, tmp_path):
    fig = report.pareto_fronts(study, OBJECTIVES)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == math.comb(len(OBJECTIVES), 2)
    for ax in panels:
        a, b = ax.get_xlabel().split(" (")[0], ax.get_ylabel().split(" (")[0]
        both = study[[a, b]].notna().all(axis=1)
        infeasible, dominated, front = (len(c.get_offsets()) for c in ax.collections)
        assert infeasible + dominated + front == int(both.sum())  # one point per trial
        assert infeasible == int((both & (study["status"] != "ok")).sum())
        assert front == int(report.front_mask(study, [a, b]).sum()) > 0
    assert panels[0].get_xlabel() == "cycles"
    assert panels[1].get_ylabel() == "energy_pj (pJ)"
    valid_svg_png(fig, tmp_path)


def test_infeasible_trials_with_some_objectives_are_grey(study):
    fig = report.pareto_fronts(study, ["area_mm2", "cycles"])
    ax = fig.axes[0]
    assert len(ax.collections[0].get_offsets()) == 0  # area alone: not placed on this pair
    assert "without every objective value" in fig.get_suptitle()


def test_parallel_coordinates_draws_one_line_per_trial(study, tmp_path):
    fig = report.parallel_coordinates(study, ATTRIBUTES, OBJECTIVES)
    ax = fig.axes[0]
    trials = [ln for ln in ax.lines if len(ln.get_xdata()) == len(ATTRIBUTES) + len(OBJECTIVES)]
    assert len(trials) == len(study)
    dashed = [ln for ln in trials if ln.get_linestyle() == "--"]
    assert len(dashed) == int((study["status"] != "ok").sum())
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "array", "dram_bw", "dma_engines", "cycles", "area_mm2 (mm²)", "energy_pj (pJ)"]
    valid_svg_png(fig, tmp_path)


def test_param_importance_ranks_what_the_objective_depends_on(study, tmp_path):
    imp = report.importances(study, ATTRIBUTES, OBJECTIVES)
    assert set(imp) == set(OBJECTIVES)
    for o in OBJECTIVES:
        assert sum(imp[o].values()) == pytest.approx(1.0)
    # cycles = f(array, dram_bw, dma): the array (16/array, 4x range) matters most
    assert max(imp["cycles"], key=imp["cycles"].get) == "array"
    fig = report.param_importance(study, ATTRIBUTES, OBJECTIVES)
    ax = fig.axes[0]
    assert [len(c) for c in ax.containers] == [len(ATTRIBUTES)] * len(OBJECTIVES)
    assert ax.get_xlabel().startswith("importance")
    valid_svg_png(fig, tmp_path)


def test_importance_ranks_a_grid_of_integers_as_it_ranks_a_categorical_attribute():
    # docs/img's 3 x 3 x 2 grid: area moves 6.3 -> 9.1 mm2 with the array, 0.1 mm2 with dram-bw
    # and dma-engines; as a numeric attribute the three dram-bw values' density estimate
    # outranked the array (0.65 against 0.31)
    arrays = {"8x8": 6.3, "16x16": 6.9, "32x32": 9.1}
    rows = [{"status": "ok", "array": a, "dram_bw": bw, "dma": dma,
             "area_mm2": base + bw / 320 + 0.08 * dma}
            for a, base in arrays.items() for bw in (8, 16, 32) for dma in (1, 2)]
    imp = report.importances(pd.DataFrame(rows), ["array", "dram_bw", "dma"], ["area_mm2"])
    assert max(imp["area_mm2"], key=imp["area_mm2"].get) == "array"


def test_param_importance_needs_varied_ok_trials(study):
    with pytest.raises(report.ReportError, match="two ok trials"):
        report.importances(study.head(1), ATTRIBUTES, OBJECTIVES)


def test_sensitivity_has_a_panel_per_objective_and_attribute(study, tmp_path):
    fig = report.sensitivity(study, ATTRIBUTES, OBJECTIVES)
    assert len(fig.axes) == len(ATTRIBUTES) * len(OBJECTIVES)
    ok = int((study["status"] == "ok").sum())
    for ax in fig.axes:
        assert len(ax.collections[0].get_offsets()) == ok  # one point per ok trial
    assert fig.axes[0].get_ylabel() == "cycles" and fig.axes[-1].get_xlabel() == "dma_engines"
    valid_svg_png(fig, tmp_path)


def test_sensitivity_orders_categories_naturally_under_their_median_line(tmp_path):
    # string categories appear as 16x16, 8x8, 32x32: the axis reads 8x8, 16x16, 32x32 and the
    # median line joins them in that order (it once sorted them as strings, a zigzag)
    df = pd.DataFrame({"status": "ok", "array": ["16x16", "8x8", "32x32", "8x8"],
                       "cycles": [40.0, 100.0, 10.0, 120.0]})
    ax = report.sensitivity(df, ["array"], ["cycles"]).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["8x8", "16x16", "32x32"]
    xs, ys = ax.lines[0].get_data()
    assert list(xs) == [0, 1, 2] and list(ys) == [110.0, 40.0, 10.0]
    assert sorted(ax.collections[0].get_offsets()[:, 0].tolist()) == [0, 0, 1, 2]


def test_axis_labels_carry_units():
    assert fig_dse._label("energy_pj[resnet18]") == "energy_pj[resnet18] (pJ)"
    assert fig_dse._label("latency_ms") == "latency_ms (ms)"
    assert fig_dse._label("array") == "array"
