"""Saved runs: flow.save_run/load_run give back the same Result, DataFrames and all; a file of
another version or format is refused in one line."""

import json

import pytest

from npusim import flow
from npusim.flow import saved


def test_a_saved_run_loads_back_into_the_same_result(small_run, tmp_path):
    path = flow.save_run(small_run, tmp_path / "run.json")
    assert (tmp_path / "run.trace.parquet").is_file()
    back = flow.load_run(path)
    assert isinstance(back, flow.Result)
    assert back.to_json() == json.loads(json.dumps(small_run.to_json()))
    assert back.layers.equals(small_run.layers)
    assert back.units.equals(small_run.units)
    assert back.trace.equals(small_run.trace)
    assert back.target == small_run.target and back.target.tag == small_run.target.tag
    assert (back.cycles, back.latency_ms, back.energy_pj) == (
        small_run.cycles, small_run.latency_ms, small_run.energy_pj)
    assert back.energy_by_action_pj == small_run.energy_by_action_pj
    assert back.verified is True and back.verification == small_run.verification
    assert back.feeds is None  # inputs are not saved: a loaded run is reported, not re-verified


def test_the_chrome_trace_of_a_loaded_run_is_the_same(small_run, tmp_path):
    flow.save_run(small_run, tmp_path / "run.json")
    back = flow.load_run(tmp_path / "run.json")
    assert back.sim.chrome_trace() == small_run.sim.chrome_trace()


def test_without_the_trace_no_parquet_and_no_trace(small_run, tmp_path):
    flow.save_run(small_run, tmp_path / "run.json", trace=False)
    assert not (tmp_path / "run.trace.parquet").exists()
    back = flow.load_run(tmp_path / "run.json")
    assert back.trace is None and back.layers.equals(small_run.layers)


def test_provenance_is_saved(small_run, tmp_path):
    flow.save_run(small_run, tmp_path / "run.json", command=["npusim", "run", "x"])
    prov = saved.saved_provenance(tmp_path / "run.json")
    assert prov["command"] == "npusim run x"
    assert set(prov) >= {"npusim", "git_commit", "python", "host", "created_utc"}


@pytest.mark.parametrize("version, word", [(saved.VERSION + 1, "a newer"), (0, "an older")])
def test_another_version_is_refused_in_one_line(small_run, tmp_path, version, word):
    path = flow.save_run(small_run, tmp_path / "run.json", trace=False)
    doc = json.loads(path.read_text())
    doc["version"] = version
    path.write_text(json.dumps(doc))
    with pytest.raises(flow.SavedRunError) as e:
        flow.load_run(path)
    msg = str(e.value)
    assert "\n" not in msg and f"version {version}" in msg and word in msg


@pytest.mark.parametrize("text, what", [('{"model": "resnet18", "cycles": 3}', "no \"format\""),
                                        ("not json at all", "not JSON"),
                                        ("[1, 2]", "no \"format\"")])
def test_a_foreign_file_is_refused_in_one_line(tmp_path, text, what):
    path = tmp_path / "other.json"
    path.write_text(text)
    with pytest.raises(flow.SavedRunError) as e:
        flow.load_run(path)
    assert "\n" not in str(e.value) and what in str(e.value)


def test_a_missing_trace_file_is_named(small_run, tmp_path):
    flow.save_run(small_run, tmp_path / "run.json")
    (tmp_path / "run.trace.parquet").unlink()
    with pytest.raises(flow.SavedRunError, match="run.trace.parquet is missing"):
        flow.load_run(tmp_path / "run.json")


def test_trace_path_sits_beside_the_file():
    assert saved.trace_path("a/b/run.json").as_posix() == "a/b/run.trace.parquet"
    assert saved.trace_path("run").as_posix() == "run.trace.parquet"
