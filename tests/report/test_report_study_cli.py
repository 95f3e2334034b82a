"""`npusim report` on a DSE study: the trial table from npusim.dse (a stand-in with the same
load/pareto_front contract here, so the wiring is tested whatever the study holds)."""

import sys
import types
from pathlib import Path

import pandas as pd
import pytest
from report_data import ATTRIBUTES, OBJECTIVES, study_frame

import npusim

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from cli_helpers import one_line_error, run  # noqa: E402


def fake_dse(calls: list):
    """npusim.dse's contract: load(storage[, study]) -> DataFrame with attrs (study,
    objectives, directions, params); pareto_front(df, objectives, directions) -> front rows."""
    def load(storage, study=None):
        calls.append((str(storage), study))
        df = study_frame().rename(columns={"dram_bw": "dram-bw"})
        df.attrs.update(study=study or "grid", objectives=OBJECTIVES,
                        directions={o: "minimize" for o in OBJECTIVES},
                        params=["array", "dram-bw", "dma_engines"])
        return df

    def pareto_front(df, objectives, directions=None):
        from npusim.report import front_mask
        return df[front_mask(df, objectives, directions)]
    return types.SimpleNamespace(load=load, pareto_front=pareto_front)


@pytest.fixture
def dse(monkeypatch):
    calls = []
    mod = fake_dse(calls)
    monkeypatch.setitem(sys.modules, "npusim.dse", mod)
    monkeypatch.setattr(npusim, "dse", mod, raising=False)
    return calls


def test_report_of_a_stored_study(capsys, tmp_path, dse):
    code, out, err = run(capsys, "report", "--storage", "sqlite:///x.db", "--study", "s1",
                         "-o", tmp_path / "rep")
    assert code == 0, err
    assert dse == [("sqlite:///x.db", "s1")]
    page = Path(out.strip()).read_text()
    assert "<title>npusim report: DSE study s1</title>" in page
    for fig in ("pareto", "parallel", "importance", "sensitivity"):
        assert (tmp_path / "rep" / f"{fig}.svg").is_file()
    trials = pd.read_csv(tmp_path / "rep" / "trials.csv")
    assert len(trials) == len(study_frame()) and "provenance" in trials.columns
    assert 'data-key="trials" data-value="18.0"' in page


def test_report_of_a_space_file(capsys, tmp_path, dse):
    space = tmp_path / "grid.toml"
    space.write_text("[study]\nname = 'grid'\n")
    code, out, err = run(capsys, "report", space, "-o", tmp_path / "rep", "--format", "md")
    assert code == 0, err
    assert dse == [(str(space), None)]
    assert "# npusim report: DSE study grid" in Path(out.strip()).read_text()


def test_a_study_has_no_baseline(capsys, tmp_path, dse):
    code, _, err = run(capsys, "report", "--storage", "x.db", "--study", "s", "--baseline",
                       "r.json", "-o", tmp_path)
    assert code == 2 and "--baseline compares two runs" in one_line_error(err)


def test_storage_needs_a_study(capsys, tmp_path):
    code, _, err = run(capsys, "report", "--storage", "x.db", "-o", tmp_path)
    assert code == 2 and "--storage and --study go together" in one_line_error(err)
