"""`npusim dse run` and `npusim dse show`: the summary, the table, the Pareto front, the files,
and one-line errors for a bad space file or storage."""

import json

import pandas as pd

from npusim.cli.main import main

from dse_helpers import write_space

SPACE = """
[study]
name = "cli"
[workloads]
models = ["small_cnn"]
resolution = 16
[space]
array = ["8x8", "16x16"]
dram-bw = [8, 32]
[objectives]
minimize = ["latency_ms", "energy_uj"]
"""


def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_then_show_the_table_the_front_and_the_files(tmp_path, capsys):
    path = write_space(tmp_path, SPACE)
    code, out, err = run(capsys, "dse", "run", path, "--json", "--no-progress")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["points"] == summary["finished"] == summary["ok"] == 4
    assert summary["storage"] == f"sqlite:///{(tmp_path / 'space.db').resolve()}"
    code, out, err = run(capsys, "dse", "show", path)
    assert code == 0 and "4 points of study cli (4 ok)" in out
    assert "array" in out and "dram-bw" in out and "latency_ms" in out
    csv, parquet = tmp_path / "t.csv", tmp_path / "t.parquet"
    code, out, _ = run(capsys, "dse", "show", "--storage", tmp_path / "space.db", "--study", "cli",
                       "--pareto", "--csv", csv, "--parquet", parquet, "--json")
    assert code == 0
    front = json.loads(out)
    assert front["objectives"] == ["latency_ms", "energy_uj"]
    rows = front["rows"]
    assert rows and all(r["status"] == "ok" for r in rows)
    table = pd.read_csv(csv)
    assert table["target"].tolist() == [r["target"] for r in rows]
    assert pd.read_parquet(parquet)["latency_ms"].tolist() == table["latency_ms"].tolist()
    code, out, _ = run(capsys, "dse", "show", path, "--json")
    every = json.loads(out)["rows"]
    for r in rows:
        assert not any(o["latency_ms"] <= r["latency_ms"] and o["energy_uj"] <= r["energy_uj"]
                       and (o["latency_ms"], o["energy_uj"]) != (r["latency_ms"], r["energy_uj"])
                       for o in every)


def test_a_bad_space_file_is_one_error_line_naming_key_value_and_choices(tmp_path, capsys):
    path = write_space(tmp_path, SPACE.replace("dram-bw = [8, 32]", "dram-bandwidth = [8, 32]"))
    code, out, err = run(capsys, "dse", "run", path, "--no-progress")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("npusim: error: ")
    assert "'dram-bandwidth' is not an npu attribute" in err and "close matches: dram-bw" in err


def test_show_of_a_missing_study_names_the_ones_there(tmp_path, capsys):
    path = write_space(tmp_path, SPACE)
    assert run(capsys, "dse", "run", path, "--no-progress")[0] == 0
    code, _, err = run(capsys, "dse", "show", "--storage", tmp_path / "space.db", "--study", "nope")
    assert code == 2 and "no study 'nope'" in err and "it has: cli" in err
    code, _, err = run(capsys, "dse", "run", path, "--jobs", 2, "--dask", "tcp://x:1")
    assert code == 2 and "--jobs and --dask exclude each other" in err


def test_show_before_any_run_says_so_and_creates_nothing(tmp_path, capsys):
    path = write_space(tmp_path, SPACE)
    code, _, err = run(capsys, "dse", "show", path)
    assert code == 2 and "no storage at" in err and "npusim dse run" in err
    assert not (tmp_path / "space.db").exists()
