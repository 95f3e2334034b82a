"""`npusim run --save/--csv`, `npusim sim --csv` and `npusim report` on a saved run, a
comparison, an artifact and a baseline; bad inputs are one-line errors."""

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from npusim.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "cli"))
from cli_helpers import one_line_error, run  # noqa: E402

SMALL = ("small_cnn", "-t", "npu-tiny", "--resolution", "16")


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    """`npusim run ... --json --trace --save --csv` once: (json printed, folder)."""
    d = tmp_path_factory.mktemp("run")
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["run", *SMALL, "--json", "--trace", str(d / "t.json"), "--save",
                     str(d / "run.json"), "--csv", str(d / "csv")])
    assert code == 0
    return json.loads(buf.getvalue()), d


def test_run_save_writes_what_json_prints_and_the_trace(saved_run):
    printed, d = saved_run
    doc = json.loads((d / "run.json").read_text())
    assert doc["format"] == "npusim-run" and doc["result"] == printed
    assert doc["trace"]["file"] == "run.trace.parquet"
    rows = pd.read_parquet(d / "run.trace.parquet")
    assert len(rows) == doc["trace"]["rows"] == printed["instructions"]
    assert doc["provenance"]["command"].startswith("npusim run small_cnn")


def test_run_csv_writes_layers_units_and_trace(saved_run):
    printed, d = saved_run
    layers = pd.read_csv(d / "csv" / "layers.csv")
    assert layers["name"].tolist() == [r["name"] for r in printed["layers"]]
    assert layers["cycles"].sum() == printed["cycles"]
    units = pd.read_csv(d / "csv" / "units.csv", index_col="unit")
    assert units.loc["core0.matrix", "busy"] > 0
    trace = pd.read_csv(d / "csv" / "trace.csv")
    assert len(trace) == printed["instructions"]


def test_sim_csv_of_an_artifact_program_has_its_layers(capsys, tmp_path):
    assert run(capsys, "compile", *SMALL, "-o", tmp_path / "art")[0] == 0
    code, out, err = run(capsys, "sim", tmp_path / "art" / "program.bin", "--timing-only",
                         "--csv", tmp_path / "csv", "--json")
    assert code == 0, err
    s = json.loads(out)
    assert len(pd.read_csv(tmp_path / "csv" / "trace.csv")) == s["instructions"]
    assert pd.read_csv(tmp_path / "csv" / "layers.csv")["cycles"].sum() == s["cycles"]
    assert set(pd.read_csv(tmp_path / "csv" / "units.csv")["unit"]) == set(s["units"])


def test_sim_csv_of_an_assembly_program(capsys, tmp_path):
    code, _, err = run(capsys, "sim", ROOT / "examples" / "gemm_tile.s", "--random-inputs", "0",
                       "--csv", tmp_path / "c")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["trace.csv", "units.csv"]


def test_report_of_a_saved_run(capsys, saved_run, tmp_path):
    printed, d = saved_run
    code, out, err = run(capsys, "report", d / "run.json", "-o", tmp_path / "rep")
    assert code == 0, err
    assert out.strip() == str(tmp_path / "rep" / "index.html")
    names = {p.name for p in (tmp_path / "rep").iterdir()}
    for fig in ("layer_cycles", "roofline", "timeline", "unit_breakdown"):
        assert {f"{fig}.svg", f"{fig}.png"} <= names
    assert {"layers.csv", "units.csv", "trace.csv", "index.html"} <= names
    page = (tmp_path / "rep" / "index.html").read_text()
    assert f'data-key="cycles" data-value="{float(printed["cycles"])!r}"' in page
    assert "<title>npusim report: small_cnn on npu-tiny</title>" in page


def test_report_markdown_with_a_baseline(capsys, saved_run, tmp_path):
    _, d = saved_run
    code, out, err = run(capsys, "report", d / "run.json", "--baseline", d / "run.json",
                         "--format", "md", "-o", tmp_path / "md")
    assert code == 0, err
    md = Path(out.strip()).read_text()
    assert Path(out.strip()).name == "index.md"
    assert "![Figure 6: per-layer cycles of run minus baseline](layer_deltas.png)" in md
    deltas = pd.read_csv(tmp_path / "md" / "deltas.csv")
    assert (deltas["delta"] == 0).all()  # a run against itself


def test_report_of_a_comparison(capsys, tmp_path):
    code, _, err = run(capsys, "run", *SMALL, "--compare", "gpu", "--save", tmp_path / "c.json")
    assert code == 0, err
    code, out, err = run(capsys, "report", tmp_path / "c.json", "-o", tmp_path / "rep")
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "rep" / "backends.csv")
    assert frame["label"].tolist() == ["npu", "gpu"]
    assert frame["figure"].tolist() == ["simulated", "estimated"]  # no CUDA device here
    assert (tmp_path / "rep" / "backends.png").is_file()


def test_report_of_an_artifact_simulates_it(capsys, tmp_path):
    assert run(capsys, "compile", *SMALL, "-o", tmp_path / "art")[0] == 0
    code, out, err = run(capsys, "report", tmp_path / "art", "-o", tmp_path / "rep")
    assert code == 0, err
    page = Path(out.strip()).read_text()
    assert "(simulated, timing only)" in page and (tmp_path / "rep" / "timeline.svg").is_file()


@pytest.mark.parametrize("make, needle", [
    (lambda p: p.write_text('{"cycles": 1}'), "is not a saved npusim run"),
    (lambda p: p.write_text(json.dumps({"format": "npusim-run", "version": 99})),
     "format version 99, written by a newer npusim"),
    (lambda p: None, "does not exist"),
    (lambda p: p.mkdir(), "not an artifact"),
])
def test_report_refuses_what_it_cannot_read_in_one_line(capsys, tmp_path, make, needle):
    p = tmp_path / "in.json"
    make(p)
    code, _, err = run(capsys, "report", p, "-o", tmp_path / "rep")
    assert code == 2 and needle in one_line_error(err)


def test_report_needs_an_input(capsys, tmp_path):
    code, _, err = run(capsys, "report", "-o", tmp_path)
    assert code == 2 and "give INPUT" in one_line_error(err)


def test_run_save_to_a_missing_folder_fails_before_compiling(capsys, tmp_path):
    code, _, err = run(capsys, "run", *SMALL, "--save", tmp_path / "no" / "r.json")
    assert code == 2 and "No such file or directory" in one_line_error(err)


def test_report_open_hands_the_written_page_to_the_browser(capsys, saved_run, tmp_path,
                                                           monkeypatch):
    """--open opens the index it wrote (as a file:// URI) in the user's web browser."""
    import webbrowser
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    _, d = saved_run
    code, out, err = run(capsys, "report", d / "run.json", "-o", tmp_path / "rep", "--open")
    assert code == 0, err
    assert opened == [(tmp_path / "rep" / "index.html").resolve().as_uri()]
