"""Running a study: every point stored once with its status, the same results for any --jobs,
infeasible and failed points recorded without stopping the sweep, programs reused only where
codegen cannot tell the Targets apart, and any row re-runnable from its provenance."""

import json
import random

import pytest

from isa.target import Target
from npusim import dse, flow
from npusim.dse import evaluate

from dse_helpers import assert_same_table, run_cli, write_space

SIX = """
[study]
name = "six"
[workloads]
models = ["small_cnn"]
resolution = 16
[space]
array = ["8x8", "16x16"]
dram-bw = [8, 16, 32]
[objectives]
minimize = ["cycles", "energy_uj"]
"""


def test_a_grid_stores_every_point_once_and_jobs_do_not_change_the_results(tmp_path):
    space = dse.load_space(write_space(tmp_path, SIX))
    one = dse.run_study(space, storage=tmp_path / "one.db", progress=False)
    assert (one["points"], one["evaluated"], one["ok"]) == (6, 6, 6)
    two = dse.run_study(space, storage=tmp_path / "two.db", jobs=2, progress=False)
    a, b = dse.load(tmp_path / "one.db"), dse.load(tmp_path / "two.db")
    assert sorted(a["target"]) == sorted({*a["target"]})  # six distinct points
    assert {(r["array"], r["dram-bw"]) for _, r in a.iterrows()} == {
        (x, bw) for x in ("8x8", "16x16") for bw in (8, 16, 32)}
    assert_same_table(a, b)
    assert two["evaluated"] == 6
    # the columns the issue names (i14's figures read them)
    for col in ("target", "status", "reason", "array", "dram-bw", "cycles", "energy_uj",
                "cycles[small_cnn]", "energy_uj[small_cnn]", "wall_s", "npusim_version",
                "git_commit", "seed", "workload_hash[small_cnn]"):
        assert col in a.columns
    again = dse.run_study(space, storage=tmp_path / "one.db", progress=False)
    assert again["evaluated"] == 0 and again["finished"] == 6


def cycles_at(target: str) -> int:
    return flow.simulate(flow.compile("small_cnn", target, resolution=16), timing_only=True).cycles


def test_infeasible_and_failed_points_are_stored_and_the_sweep_goes_on(tmp_path, monkeypatch):
    slow, fast = cycles_at("npu-edge -dram-bw=16"), cycles_at("npu-edge -dram-bw=32")
    assert fast < slow
    budget = (slow + fast) // 2  # the 16 B/cycle point breaks it, the 32 B/cycle one not
    space = dse.load_space(write_space(tmp_path, """
[study]
name = "bad"
[workloads]
models = ["small_cnn"]
resolution = 16
[space]
wbuf-kb = [1, 64, 128]
dram-bw = [16, 32]
[objectives]
minimize = ["cycles"]
[constraints]
cycles = { max = BUDGET }
""".replace("BUDGET", str(budget))))
    real = flow.execute

    def crashing(artifact, inputs, target=None, **kw):
        if target is not None and target.wbuf_kb == 64 and target.dram_bw == 32:
            raise RuntimeError("boom inside the simulator")
        return real(artifact, inputs, target, **kw)
    monkeypatch.setattr(flow, "execute", crashing)
    summary = dse.run_study(space, storage=tmp_path / "bad.db", progress=False)
    df = dse.load(tmp_path / "bad.db").set_index(["wbuf-kb", "dram-bw"])
    assert summary["points"] == 6 and len(df) == 6
    for bw in (16, 32):
        row = df.loc[(1, bw)]
        assert row["status"] == "infeasible"
        assert row["reason"].startswith("small_cnn: layer 'conv")
        assert "fits the Target's buffers" in row["reason"] and "\n" not in row["reason"]
    crashed = df.loc[(64, 32)]
    assert crashed["status"] == "failed"
    assert crashed["reason"] == "small_cnn: RuntimeError: boom inside the simulator"
    over = df.loc[(128, 16)]
    assert over["status"] == "infeasible" and over["cycles"] == slow
    assert over["reason"] == f"constraint cycles = {slow} > max {budget}"
    assert df.loc[(128, 32), "status"] == "ok" and df.loc[(128, 32), "cycles"] == fast
    counts = df["status"].value_counts()
    assert [summary[k] for k in ("ok", "infeasible", "failed")] == [
        counts.get(k, 0) for k in ("ok", "infeasible", "failed")]
    assert summary["failed"] == 1 and summary["infeasible"] >= 3
    assert dse.pareto_front(dse.load(tmp_path / "bad.db"))["status"].eq("ok").all()


def test_programs_are_reused_only_across_attributes_codegen_never_reads(tmp_path):
    base = flow.compile("small_cnn", "npu-edge", resolution=16)
    other = flow.compile("small_cnn", "npu-edge -freq-mhz=400 -energy-mac-pj=0.5 "
                         "-energy-sram-byte-pj=0.1 -energy-dram-byte-pj=20 "
                         "-energy-vector-op-pj=0.2 -static-mw=10", resolution=16)
    a, b = base.artifact.program, other.artifact.program  # equal but for the Target they name
    assert (a.cores, a.tensors, a.labels) == (b.cores, b.tensors, b.labels) and a.target != b.target
    assert base.artifact.constants == other.artifact.constants
    assert evaluate.codegen_key(base.target) == evaluate.codegen_key(other.target)
    # a timing attribute the simulator could change at run time still moves the tiling: not
    # reused (a re-run with `npusim run -t` would compile another program)
    faster = flow.compile("small_cnn", "npu-edge -dram-bw=32", resolution=16)
    assert faster.artifact.program.cores != a.cores
    assert evaluate.codegen_key(base.target) != evaluate.codegen_key(
        base.target.with_attrs(dram_bw=32))
    evaluate._PROGRAMS.clear()
    w = {"model": "small_cnn", "resolution": 16, "label": "small_cnn"}
    _, first = evaluate.measure(w, base.target)
    reused, second = evaluate.measure(w, other.target)
    assert not first["program_reused"] and second["program_reused"]
    fresh = flow.simulate(other, timing_only=True)
    assert (reused.cycles, reused.energy_pj) == (fresh.cycles, fresh.energy_pj)


def test_a_random_row_reruns_with_npusim_run_to_the_same_cycles(tmp_path):
    space = dse.load_space(write_space(tmp_path, SIX))
    dse.run_study(space, progress=False)
    df = dse.load(space)
    row = df.iloc[random.Random(0).randrange(len(df))]
    assert row["npusim_version"] == "0.1.0" and row["seed"] == 0
    assert len(row["workload_hash[small_cnn]"]) == 64
    assert row["git_commit"] is None or len(row["git_commit"]) >= 40
    res = run_cli("run", "small_cnn", "-t", row["target"], "--resolution", 16, "--timing-only",
                  "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["cycles"] == row["cycles[small_cnn]"] == row["cycles"]


def test_random_search_copies_a_point_it_draws_twice(tmp_path):
    space = dse.load_space(write_space(tmp_path, """
[study]
name = "dups"
sampler = "random"
trials = 6
[workloads]
models = ["mlp"]
[space]
dram-bw = [8, 16]
[objectives]
minimize = ["cycles"]
"""))
    summary = dse.run_study(space, progress=False)
    df = dse.load(space)
    assert len(df) == 6 and df["target"].nunique() == 2
    assert summary["evaluated"] < 6  # the repeats were copied, not simulated again
    assert df.groupby("target")["cycles"].nunique().eq(1).all()


def test_a_study_made_from_another_space_is_refused(tmp_path):
    path = write_space(tmp_path, SIX)
    dse.run_study(dse.load_space(path), trials=None, progress=False)
    path.write_text(SIX.replace('[8, 16, 32]', '[8, 16]'))
    with pytest.raises(dse.StudyError, match="was made from another space"):
        dse.run_study(dse.load_space(path), progress=False)


DATAFLOW = """
[study]
name = "dataflow"
base = "npu-edge"
[workloads]
models = ["small_cnn"]
resolution = 16
[space]
dataflow = ["ws", "os"]
array = ["8x8", "16x16"]
[objectives]
minimize = ["cycles", "energy_uj"]
"""


def test_a_grid_sweeps_the_dataflow_and_compiles_a_program_for_each(tmp_path):
    space = dse.load_space(write_space(tmp_path, DATAFLOW))
    assert space.params[0].grid_values() == ["ws", "os"]
    evaluate._PROGRAMS.clear()
    out = dse.run_study(space, storage=tmp_path / "df.db", progress=False)
    assert (out["points"], out["ok"]) == (4, 4)
    table = dse.load(tmp_path / "df.db")
    assert sorted(zip(table["dataflow"], table["array"])) == [
        ("os", "16x16"), ("os", "8x8"), ("ws", "16x16"), ("ws", "8x8")]
    for array in ("8x8", "16x16"):
        rows = table[table["array"] == array].set_index("dataflow")
        # the study's cycles are npusim run's, and the dataflow moves them
        assert rows.loc["os", "cycles"] == cycles_at(f"npu-edge -array={array} -dataflow=os")
        assert rows.loc["ws", "cycles"] == cycles_at(f"npu-edge -array={array}")
        assert rows.loc["os", "cycles"] != rows.loc["ws", "cycles"]
    # codegen reads the dataflow: no program is reused across it
    ws = Target.create("npu-edge")
    assert evaluate.codegen_key(ws) != evaluate.codegen_key(ws.with_attrs(dataflow="os"))
