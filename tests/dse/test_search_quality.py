"""Search quality: the hypervolume ratio (exact on a hand-computed front), and NSGA-II and TPE
given 20% of a synthetic 240-point space's budget coming near its known front, through the
real driver (the points' figures come from a formula instead of a simulation)."""

import numpy as np
import pytest

from isa.target import Target
from npusim import dse

SPACE = {"array": ["4x4", "8x8", "16x16", "32x32"], "vector-lanes": [4, 8, 16, 32, 64],
         "dram-bw": [4, 8, 16, 32], "ibuf-kb": [16, 32, 64]}
OBJECTIVES = ["latency_ms", "energy_uj", "area_mm2"]


def figures(target: Target) -> dict:
    """A made-up but architect-shaped trade-off: the time is the slowest of compute, vector
    and memory (a roofline: only balanced designs are on the front), the memory time shrinks
    with a bigger buffer; area is the sum of the parts; energy is leakage (area x time) plus
    DRAM traffic that a bigger buffer saves."""
    rows = target.array_rows
    latency = max(4096 / rows ** 2, 64 / target.vector_lanes,
                  (32 + 256 / target.ibuf_kb) / target.dram_bw)
    area = rows ** 2 / 256 + target.vector_lanes / 32 + target.dram_bw / 16 \
        + target.ibuf_kb / 32
    return {"latency_ms": latency, "area_mm2": area,
            "energy_uj": area * latency + 200 / target.ibuf_kb}


def synthetic(task: dict) -> dict:
    values = figures(Target.create(task["target"]))
    return {"number": task["number"], "key": task["key"], "target": task["target"],
            "status": "ok", "reason": "", "values": values, "per": {}, "constraints": [],
            "details": {}, "provenance": {}, "worker": "formula", "wall_s": 0.0, "cpu_s": 0.0}


def grid_losses() -> np.ndarray:
    base = Target.create("npu-edge")
    rows = []
    for a in SPACE["array"]:
        for lanes in SPACE["vector-lanes"]:
            for bw in SPACE["dram-bw"]:
                for kb in SPACE["ibuf-kb"]:
                    v = figures(base.with_attrs(array=a, vector_lanes=lanes, dram_bw=bw,
                                                ibuf_kb=kb))
                    rows.append([v[o] for o in OBJECTIVES])
    return np.array(rows)


def test_the_ratio_is_exact_on_a_hand_computed_front():
    front = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])
    universe = np.vstack([front, [[0.9, 0.9], [3.0, 3.0]]])  # dominated points change nothing
    # normalized by the front's ideal (0, 0) and nadir (1, 1), reference (1.1, 1.1):
    # 0.5 x 0.1 + 0.5 x 0.6 + 0.1 x 1.1 = 0.46 for the front
    assert dse.hypervolume_ratio(front, universe) == pytest.approx(1.0)
    # without the knee: 1.0 x 0.1 + 0.1 x 1.1 = 0.21
    assert dse.hypervolume_ratio(front[[0, 2]], universe) == pytest.approx(0.21 / 0.46)
    # beyond the nadir in one objective counts for nothing; just inside it, a sliver
    assert dse.hypervolume_ratio(np.array([[2.0, 0.0]]), universe) == 0.0
    assert dse.hypervolume_ratio(np.array([[1.05, 1.05]]), universe) == \
        pytest.approx(0.05 * 0.05 / 0.46)
    # the scale of an objective does not matter
    assert dse.hypervolume_ratio(front[[0, 2]] * [1000, 1], universe * [1000, 1]) == \
        pytest.approx(0.21 / 0.46)
    with pytest.raises(ValueError, match="universe has no points"):
        dse.hypervolume_ratio(front, np.zeros((0, 2)))


def run(tmp_path, sampler: str, seed: int, trials: int) -> np.ndarray:
    space = dse.parse_space({"study": {"name": f"{sampler}-{seed}", "base": "npu-edge",
                                       "sampler": sampler, "seed": seed, "trials": trials},
                             "workloads": {"models": ["small_cnn"]}, "space": SPACE,
                             "objectives": {"minimize": OBJECTIVES}},
                            source=str(tmp_path / f"{sampler}-{seed}.toml"))
    summary = dse.run_study(space, progress=False, evaluate=synthetic)
    assert summary["finished"] == trials
    df = dse.load(space)
    assert (df["worker"] == "formula").all()  # the formula answered, nothing was simulated
    return df[OBJECTIVES].to_numpy(float), len(set(df["target"]))


def test_nsga2_and_tpe_come_near_the_known_front_with_a_fifth_of_the_budget(tmp_path):
    universe = grid_losses()
    assert len(universe) == 240
    assert int(dse.non_dominated(universe).sum()) == 9  # the known front: balanced designs
    assert dse.hypervolume_ratio(universe, universe) == pytest.approx(1.0)
    budget = len(universe) // 5
    for sampler in ("nsga2", "tpe"):
        got = [run(tmp_path, sampler, seed, budget) for seed in (0, 1, 2)]
        # neither spends the budget on a point it already asked
        assert [distinct for _, distinct in got] == [budget] * 3
        ratios = [dse.hypervolume_ratio(points, universe) for points, _ in got]
        assert all(0.0 < r <= 1.0 for r in ratios), ratios
        # (0.93 and 0.96 today; the real space's figures are experiments/bench_dse.py's)
        assert np.mean(ratios) >= 0.9, (sampler, ratios)


AREA_LIMIT = 3.0  # mm^2 of the synthetic formula: about a third of its 240 points break it


def constrained(task: dict) -> dict:
    """The synthetic formula's record under area_mm2 <= AREA_LIMIT (evaluate.py's convention:
    one value - max per constraint, infeasible when it is > 0)."""
    rec = synthetic(task)
    over = rec["values"]["area_mm2"] - AREA_LIMIT
    return dict(rec, constraints=[over], status="infeasible" if over > 0 else "ok",
                reason=f"constraint area_mm2 = {rec['values']['area_mm2']:g} > max "
                       f"{AREA_LIMIT:g}" if over > 0 else "")


def test_nsga2_parents_are_feasible_elites_of_the_whole_history(tmp_path):
    """The configuration the benchmark measures: NSGA-II's parents are the population_size
    elites of every finished point (not the last generation's), chosen by NSGA-III's
    reference-point survival under the constraints; the same storage gives the same elites."""
    from optuna.samplers._nsgaiii._elite_population_selection_strategy import \
        NSGAIIIElitePopulationSelectionStrategy
    from npusim.dse import samplers
    from npusim.dse.storage import open_study
    space = dse.parse_space({"study": {"name": "elites", "base": "npu-edge", "sampler": "nsga2",
                                       "seed": 3, "trials": 40, "batch": 8},
                             "workloads": {"models": ["small_cnn"]}, "space": SPACE,
                             "objectives": {"minimize": OBJECTIVES},
                             "constraints": {"area_mm2": {"max": AREA_LIMIT}}},
                            source=str(tmp_path / "elites.toml"))
    dse.run_study(space, progress=False, evaluate=constrained)
    df = dse.load(space)
    assert len(df) == 40 and (df["status"] == "infeasible").any()
    study = open_study(space)
    sampler = samplers.make_sampler(space, 40, 48)
    assert isinstance(sampler._elite_population_selection_strategy,
                      NSGAIIIElitePopulationSelectionStrategy)
    elites = sampler.select_parent(study, 5)
    numbers = sorted(t.number for t in elites)
    assert len(numbers) == 8
    # feasible points only: the study has more than 8 of them, and a feasible point
    # constraint-dominates every infeasible one
    ok = set(df.loc[df["status"] == "ok", "trial"])
    assert len(ok) > 8 and set(numbers) <= ok, (numbers, sorted(ok))
    # from the whole history, not only the last generation (points 32..39)
    assert min(numbers) < 32, numbers
    # rank first: every elite is non-dominated among the feasible points when the feasible
    # front holds at least 8 of them, else the whole front is among the elites
    feasible = df[df["status"] == "ok"]
    front = set(feasible["trial"][dse.non_dominated(feasible[OBJECTIVES].to_numpy(float))])
    assert set(numbers) <= front if len(front) >= 8 else front <= set(numbers)
    # deterministic: a fresh sampler for the same point picks the same elites
    again = samplers.make_sampler(space, 40, 48).select_parent(study, 5)
    assert sorted(t.number for t in again) == numbers
