"""--races on `npusim sim` and `npusim run`: a racy program faults by default (exit 1), prints
its races as warnings and goes on with --races warn, and is not checked with --races off."""

import json
from pathlib import Path

import pytest

from cli_helpers import run

RACY = Path(__file__).parents[2] / "examples" / "racy"
RAW = RACY / "missing_wait_raw.s"


def test_a_race_is_a_fault_by_default(capsys):
    code, out, err = run(capsys, "sim", RAW)
    assert code == 1 and out == ""
    assert err.startswith("npusim: run 1 of missing_wait_raw.s on npu-tiny faulted: "
                          "core0.matrix [2] gemm")
    assert "RAW race on core0 ibuf[0x0:0x10]" in err and "Traceback" not in err


def test_warn_prints_each_race_and_finishes_the_run(capsys):
    code, out, err = run(capsys, "sim", RAW, "--races", "warn", "--json")
    assert code == 0
    lines = err.splitlines()
    assert len(lines) == 2 and all(line.startswith("npusim: warning: ") for line in lines)
    assert "RAW race on core0 ibuf[0x0:0x10]" in lines[0]
    assert "WAR race on core0 wbuf[0x0:0x10]" in lines[1]
    assert json.loads(out)["races"] == 2


def test_off_skips_the_check(capsys):
    code, out, err = run(capsys, "sim", RAW, "--races", "off", "--json")
    assert code == 0 and err == "" and json.loads(out)["races"] == 0


def test_a_correct_program_has_no_race(capsys):
    example = RACY.parent / "gemm_double_buffered.s"
    code, out, err = run(capsys, "sim", example, "--random-inputs", "0", "--json")
    assert code == 0 and err == "" and json.loads(out)["races"] == 0


def test_run_counts_races_of_a_compiled_model(capsys):
    code, out, err = run(capsys, "run", "small_cnn", "-t", "npu-tiny", "--races", "warn",
                         "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["races"] == 0


def test_races_must_be_a_mode(capsys):
    with pytest.raises(SystemExit) as e:  # argparse's own usage error
        run(capsys, "sim", RAW, "--races", "maybe")
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1
    assert "argument --races: invalid choice: 'maybe' (choose from 'error', 'warn', 'off')" in err
