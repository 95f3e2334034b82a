"""The objective registry, the geometric-mean aggregate, Pareto fronts and hypervolume."""

import math

import numpy as np
import pandas as pd
import pytest

from isa.target import Target
from npusim.dse import OBJECTIVES, Measured, geomean, hypervolume, objectives, pareto_front


def measured(**kw):
    base = dict(cycles=1000, latency_ms=0.001, energy_pj=2e6, macs=128_000, dram_bytes=4000,
                target=Target.create("npu-edge"), area_mm2=2.0)
    return Measured(**{**base, **kw})


def test_the_registry_has_the_issue_objectives_with_units():
    for name in ("cycles", "latency_ms", "energy_uj", "area_mm2", "edp", "utilization",
                 "throughput_per_mm2"):
        assert name in OBJECTIVES and OBJECTIVES[name].unit and OBJECTIVES[name].doc


def test_each_objective_is_computed_from_the_measurement():
    agg, per = objectives.evaluate_all({"a": measured()})
    assert agg["cycles"] == 1000 and agg["energy_uj"] == 2.0 and agg["area_mm2"] == 2.0
    assert agg["edp"] == pytest.approx(2.0 * 0.001)
    assert agg["utilization"] == pytest.approx(128_000 / (1000 * 256))  # 16x16 peak
    assert agg["throughput_per_mm2"] == pytest.approx(1000 / 0.001 / 2.0)
    assert per["cycles"] == {"a": 1000.0}


def test_the_aggregate_is_the_geometric_mean_over_workloads():
    agg, per = objectives.evaluate_all({"a": measured(cycles=100), "b": measured(cycles=400)})
    assert agg["cycles"] == pytest.approx(200.0)
    assert per["cycles"] == {"a": 100.0, "b": 400.0}
    assert geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert math.isnan(geomean([1.0, math.nan])) and geomean([0.0, 5.0]) == 0.0


def test_adding_an_objective_is_one_registered_function():
    @objectives.objective("macs_per_byte", "MAC/B", "arithmetic intensity")
    def _intensity(m):
        return m.macs / m.dram_bytes
    try:
        agg, _ = objectives.evaluate_all({"a": measured()})
        assert agg["macs_per_byte"] == 32.0
        from npusim.dse import parse_space
        s = parse_space({"study": {"name": "s"}, "workloads": {"models": ["mlp"]},
                         "space": {"dram-bw": [8]},
                         "objectives": {"maximize": ["macs_per_byte"]}})
        assert s.directions == ["maximize"]
    finally:
        del OBJECTIVES["macs_per_byte"]


def test_area_is_npusim_hw_area_for_any_target_and_moves_with_the_hardware():
    from npusim.hw.area import area_mm2
    edge = Target.create("npu-edge")
    assert objectives.area_mm2(edge) == area_mm2(edge)
    odd, why = objectives.point_area(Target.create("npu-edge -array=5x7"))  # never synthesized
    assert why == "" and 0 < odd < objectives.area_mm2(edge)
    assert objectives.area_mm2(edge.with_attrs(array=(32, 32))) > objectives.area_mm2(edge)


def test_pareto_front_keeps_the_non_dominated_ok_rows():
    df = pd.DataFrame({"status": ["ok", "ok", "ok", "ok", "infeasible", "ok"],
                       "lat": [1.0, 2.0, 3.0, 2.0, 0.1, np.nan],
                       "en": [3.0, 2.0, 1.0, 2.5, 0.1, 0.0]})
    front = pareto_front(df, ["lat", "en"])
    assert front.index.tolist() == [0, 1, 2]
    front = pareto_front(df, ["lat", "en"], {"en": "maximize"})
    assert front.index.tolist() == [0]  # lat 1, en 3 beats every other row once en is maximized


def test_hypervolume_is_exact():
    pts = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])
    assert hypervolume(pts, np.array([4.0, 4.0])) == pytest.approx(3 + 2 + 1)
    cube = np.array([[0.0, 0.0, 0.0]])
    assert hypervolume(cube, np.array([2.0, 3.0, 4.0])) == pytest.approx(24.0)
    two = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    # [0,2]x[1,2]x[1,2] (vol 2) with [1,2]x[0,2]x[0,2] (vol 4), overlapping in [1,2]^3 (vol 1)
    assert hypervolume(two, np.array([2.0, 2.0, 2.0])) == pytest.approx(5.0)
    assert hypervolume(np.array([[5.0, 5.0]]), np.array([4.0, 4.0])) == 0.0
