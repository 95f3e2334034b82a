"""Inputs a new user tried (issue 12's probes) get one clear line, not a traceback or a silent
guess: negative seeds, and a target option written with two dashes."""

from pathlib import Path

import pytest

from cli_helpers import one_line_error, run

GEMM = str(Path(__file__).parents[2] / "examples" / "gemm_tile.s")


@pytest.mark.parametrize("argv,match", [
    (["run", "small_cnn", "-t", "npu-tiny", "--seed", "-1"],
     "npusim: error: run: argument --seed: must be >= 0, got -1"),
    (["sim", GEMM, "--random-inputs", "-1"],
     "npusim: error: sim: argument --random-inputs: must be >= 0, got -1"),
    (["sim", GEMM, "--max-cycles", "0"],
     "npusim: error: sim: argument --max-cycles: must be >= 1, got 0"),
])
def test_negative_seeds_are_usage_errors(capsys, argv, match):
    with pytest.raises(SystemExit) as e:  # argparse's own usage error
        run(capsys, *argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith(match) and "Traceback" not in err


def test_a_two_dash_target_option_is_refused_with_the_fix(capsys):
    code, out, err = run(capsys, "run", "small_cnn", "-t", "npu-tiny --array=32x32")
    assert code == 2 and out == ""
    assert one_line_error(err) == (
        "npusim: error: -t 'npu-tiny --array=32x32': target option '--array=32x32' in "
        "'npu-tiny --array=32x32' has two dashes; target options take one: '-array=32x32'\n")


def test_a_seed_may_be_zero_or_hex(capsys):
    code, _, err = run(capsys, "sim", GEMM, "--random-inputs", "0x10",
                       "--timing-only")
    assert code == 0 and err == ""


def test_an_unwritable_trace_is_refused_before_compiling(capsys, tmp_path, monkeypatch):
    from npusim import flow

    def must_not_compile(*a, **k):
        raise AssertionError("compiled before checking --trace")
    monkeypatch.setattr(flow, "compile", must_not_compile)
    trace = tmp_path / "missing" / "t.json"
    code, out, err = run(capsys, "run", "small_cnn", "--trace", trace)
    assert code == 2 and out == ""
    assert one_line_error(err) == (f"npusim: error: cannot write '{trace}': "
                                   "No such file or directory\n")
    code, _, err = run(capsys, "run", "small_cnn", "--trace", tmp_path)
    assert code == 2 and one_line_error(err).endswith(": Is a directory\n")


def test_the_trace_is_written_whole(capsys, tmp_path):
    import json
    trace = tmp_path / "t.json"
    code, _, _ = run(capsys, "run", "small_cnn", "-t", "npu-tiny", "--timing-only",
                     "--trace", trace)
    assert code == 0 and "traceEvents" in json.loads(trace.read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
