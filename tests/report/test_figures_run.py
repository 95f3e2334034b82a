"""Figures 1-6 on a small run: one bar/point per layer or unit, the axis labels, valid SVG+PNG."""

import numpy as np
import pandas as pd
import pytest
from figure_checks import bar_counts, valid_svg_png

from npusim import report
from npusim.report import fig_timeline, frames


def with_causes(layers: pd.DataFrame) -> pd.DataFrame:
    """The table as the per-layer attribution gives it: cycles_by_cause summing to cycles."""
    def split(c):
        compute, dram = c // 2, c // 5
        return {"compute": compute, "dma": 0, "dram": dram, "token": c - compute - dram,
                "queue": 0, "barrier": 0, "idle": 0}
    return layers.assign(cycles_by_cause=layers["cycles"].map(split))


def test_layer_cycles_stacks_each_layers_cycles_by_cause(small_run, tmp_path):
    layers = small_run.layers
    if not frames.has_causes(layers):  # the run's own attribution, once flow gives it
        layers = with_causes(layers)
    fig = report.layer_cycles(layers)
    ax = fig.axes[0]
    counts = bar_counts(ax)
    assert counts and all(n == len(layers) for n in counts)  # one bar per layer per cause
    tops = np.max([[r.get_y() + r.get_height() for r in c] for c in ax.containers], axis=0)
    assert tops.tolist() == layers["cycles"].astype(float).tolist()  # stacks sum to cycles
    causes = frames.layer_causes(layers)
    drawn = [c for c in frames.CAUSES if causes[c].any()]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(labels) == sorted([report.style.CAUSE_LABELS[c] for c in drawn]
                                    + ["roofline bound"])
    assert len(ax.collections[0].get_segments()) == len(layers)  # one roofline tick a layer
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("layer", "cycles")
    assert [t.get_text() for t in ax.get_xticklabels()] == layers["name"].tolist()
    valid_svg_png(fig, tmp_path)


def test_layer_cycles_without_attribution_colours_by_bound(small_run, tmp_path):
    layers = small_run.layers.drop(columns=["cycles_by_cause"], errors="ignore")
    ax = report.layer_cycles(layers).axes[0]
    assert bar_counts(ax)[0] == len(layers)
    assert [r.get_height() for r in ax.containers[0]] == layers["cycles"].tolist()
    assert any("no per-cause attribution" in t.get_text() for t in ax.get_legend().get_texts())


def test_roofline_has_one_point_per_layer_with_macs_and_traffic(small_run, tmp_path):
    layers, t = small_run.layers, small_run.target
    fig = report.roofline(layers, t.derived.peak_macs_per_cycle, t.dram_bw)
    ax = fig.axes[0]
    points = sum(len(c.get_offsets()) for c in ax.collections)
    want = (layers["macs"] > 0) & (layers["dram_bytes"] > 0) & (layers["cycles"] > 0)
    assert points == int(want.sum()) > 0
    xy = np.concatenate([c.get_offsets() for c in ax.collections if len(c.get_offsets())])
    d = layers[want]
    assert sorted(xy[:, 0]) == pytest.approx(sorted(d["macs"] / d["dram_bytes"]))
    assert sorted(xy[:, 1]) == pytest.approx(sorted(d["macs"] / d["cycles"]))
    roof = ax.lines[0].get_ydata()
    assert roof.max() == t.derived.peak_macs_per_cycle  # the compute roof
    assert ax.get_xlabel() == "arithmetic intensity (MACs per DRAM byte)"
    assert ax.get_ylabel() == "achieved MACs per cycle"
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    valid_svg_png(fig, tmp_path)


def test_timeline_has_one_row_per_unit_and_the_dram_roof(small_run, tmp_path):
    tr = small_run.trace
    fig = report.timeline(tr, small_run.layers, cycles=small_run.cycles,
                          dram_bytes_per_cycle=small_run.target.dram_bw)
    gantt, bw = fig.axes
    units = sorted({f"core{c}.{u}" for c, u in zip(tr["core"], tr["unit"])})
    assert sorted(t.get_text() for t in gantt.get_yticklabels()) == units
    assert gantt.get_ylabel() == "unit" and bw.get_xlabel() == "time (cycles)"
    assert bw.get_ylabel() == "DRAM B/cycle"
    assert bw.lines[0].get_ydata()[0] == small_run.target.dram_bw  # the peak line
    assert bw.get_xlim() == (0, small_run.cycles)
    valid_svg_png(fig, tmp_path)


def test_coalesce_merges_intervals_closer_than_the_gap():
    s, e = np.array([0, 10, 12, 40]), np.array([5, 12, 20, 41])
    assert fig_timeline.coalesce(s, e, gap=0) == [(0, 5), (10, 10), (40, 1)]
    assert fig_timeline.coalesce(s, e, gap=5) == [(0, 20), (40, 1)]
    assert fig_timeline.coalesce(np.array([]), np.array([]), 1) == []


def test_dram_bandwidth_spreads_each_transfer_over_its_cycles():
    tr = pd.DataFrame({"start": [0, 5], "end": [10, 15], "bytes": [100, 50]})
    edges, rate = fig_timeline.dram_bandwidth(tr, 20, bins=4)
    assert edges.tolist() == [0, 5, 10, 15, 20]
    assert rate.tolist() == pytest.approx([10, 15, 5, 0])  # 10 B/c + 5 B/c overlap in 5..10
    assert (rate * np.diff(edges)).sum() == pytest.approx(150)  # every byte counted once


def test_unit_breakdown_has_one_bar_per_unit_per_counter(small_run, tmp_path):
    units = small_run.units
    fig = report.unit_breakdown(units)
    ax = fig.axes[0]
    assert bar_counts(ax) == [len(units)] * 6
    ends = np.max([[r.get_x() + r.get_width() for r in c] for c in ax.containers], axis=0)
    assert ends.tolist() == [float(small_run.cycles)] * len(units)  # busy+stalls+idle = run
    assert [t.get_text() for t in ax.get_yticklabels()] == units.index.tolist()
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("cycles", "unit")
    valid_svg_png(fig, tmp_path)


def test_backends_marks_measured_and_estimated(tmp_path):
    s = {"target": "npu-edge", "latency_ms": 2.0,
         "backends": {"cpu": {"target": "cpu-host", "latency_ms": 40.0, "measured": True},
                      "gpu": {"target": "gpu-a100", "latency_ms": 0.5, "measured": False},
                      "bad": {"target": "gpu-t4", "latency_ms": None, "measured": False,
                              "error": "no nvcc"}}}
    frame = report.compare_frame(s)
    assert frame["figure"].tolist() == ["simulated", "measured", "estimated", "error"]
    fig = report.backends(frame)
    ax = fig.axes[0]
    assert sum(bar_counts(ax)) == 3  # the failed backend has no bar
    heights = sorted(r.get_height() for c in ax.containers for r in c)
    assert heights == [0.5, 2.0, 40.0]
    hatched = [r.get_hatch() for c in ax.containers for r in c if r.get_height() == 0.5]
    assert hatched == ["//"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "simulated", "measured", "estimated"]
    assert ax.get_ylabel() == "latency (ms, log scale)"
    valid_svg_png(fig, tmp_path)


def test_layer_deltas_are_the_per_layer_differences(small_run, tmp_path):
    layers = small_run.layers
    base = layers.assign(cycles=layers["cycles"] + np.arange(len(layers)) - 2)
    d = report.delta_frame(layers, base)
    assert d["delta"].tolist() == (2 - np.arange(len(layers))).tolist()
    fig = report.layer_deltas(layers, base, label="A", baseline_label="B")
    ax = fig.axes[0]
    assert sum(bar_counts(ax)) == len(layers)
    assert sorted(r.get_height() for c in ax.containers for r in c) == sorted(d["delta"])
    assert ax.get_ylabel() == "cycles (A - B)"
    total = int(layers["cycles"].sum()) - int(base["cycles"].sum())
    assert f"{total:+,} cycles in all" in ax.get_title()
    valid_svg_png(fig, tmp_path)


def test_delta_frame_matches_layers_by_name_and_occurrence():
    a = pd.DataFrame({"name": ["x", "y", "x", "z"], "cycles": [10, 20, 30, 5]})
    b = pd.DataFrame({"name": ["x", "x", "y"], "cycles": [8, 33, 20]})
    d = report.delta_frame(a, b)
    assert d[["name", "cycles", "baseline_cycles", "delta"]].values.tolist() == [
        ["x", 10, 8, 2], ["y", 20, 20, 0], ["x", 30, 33, -3]]


def test_layer_bands_are_disjoint_and_end_where_the_layers_end():
    layers = pd.DataFrame({"name": ["a", "b", "c"], "cycles": [10, 5, 7],
                           "start": [0, 4, 30], "end": [10, 15, 37]})
    bands = frames.layer_bands(layers)
    assert bands[["start", "end"]].values.tolist() == [[0, 10], [10, 15], [30, 37]]
    # without start/end: the running sum of the cycles partition
    spans = frames.layer_bands(layers.drop(columns=["start", "end"]))
    assert spans[["start", "end"]].values.tolist() == [[0, 10], [10, 15], [15, 22]]
