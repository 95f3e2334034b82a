"""`npusim sim`: JSON and text reports, inputs/outputs, traces, target overrides, exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from isa.asm import assemble_file
from isa.semantics import gemm, requantize
from cli_helpers import one_line_error, run
from npusim.cli.main import main
from npusim.simulate import simulate

EXAMPLES = Path(__file__).parents[2] / "examples"
GEMM = EXAMPLES / "gemm_tile.s"
rng = np.random.default_rng(3)


@pytest.fixture
def gemm_inputs(tmp_path):
    a = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    w = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    rq = np.stack([rng.integers(1 << 13, 1 << 15, 16), rng.integers(18, 24, 16)], 1)
    arrays = {"A": a, "W": w, "RQ": rq}  # RQ stays int64: values fit, so it is accepted
    for name, arr in arrays.items():
        np.save(tmp_path / f"{name}.npy", arr)
    return arrays, [f"--input={n}={tmp_path / n}.npy" for n in arrays]


def test_json_report_matches_simulate(capsys):
    code, out, err = run(capsys, "sim", GEMM, "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    direct = simulate(assemble_file(GEMM))
    for key in ("cycles", "instructions", "utilization", "dram_bytes", "units", "energy_pj"):
        assert data[key] == direct.to_json()[key], key
    assert data["target"].startswith("npu -array=16x16") and data["timing_only"] is False
    assert data["sim_wall_s"] > 0 and data["cycles"] > 0
    dma0 = data["units"]["core0.dma0"]
    assert dma0["busy"] + dma0["idle"] + sum(v for k, v in dma0.items()
                                            if k.startswith("stall_")) == data["cycles"]


def test_output_is_the_reference_result(capsys, tmp_path, gemm_inputs):
    arrays, flags = gemm_inputs
    c_path = tmp_path / "c.out"  # written exactly there, no .npy appended
    code, out, err = run(capsys, "sim", GEMM, *flags, "--output", f"C={c_path}")
    assert (code, err) == (0, "")
    rq = arrays["RQ"]
    acc = gemm(arrays["A"], arrays["W"])
    expected = requantize(acc.reshape(-1), rq[:, 0], rq[:, 1], 0, False, 16).reshape(16, 16)
    np.testing.assert_array_equal(np.load(c_path), expected)
    assert np.load(c_path).dtype == np.int8


def test_text_report_has_summary_and_unit_table(capsys):
    code, out, _ = run(capsys, "sim", GEMM, "--random-inputs", "1")
    cycles = simulate(assemble_file(GEMM), trace=False).cycles
    assert code == 0
    assert out.splitlines()[0] == f"{GEMM} on npu-edge"
    assert f"  cycles        {cycles}  ({cycles / 1000:.3f} us at 1000 MHz)" in out
    for word in ("instructions", "utilization", "B/cycle", "GB/s", "energy", "stall:token",
                 "stall:dram", "busy%"):
        assert word in out
    units = [line.split()[0] for line in out.splitlines() if line.startswith("core0.")]
    assert units == ["core0.dispatch", "core0.matrix", "core0.vector", "core0.dma0", "core0.dma1"]


def test_trace_is_chrome_trace_json(capsys, tmp_path):
    trace = tmp_path / "t.json"
    code, out, _ = run(capsys, "sim", GEMM, "--trace", trace, "--json")
    data = json.loads(trace.read_text())
    spans = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert code == 0 and len(spans) == assemble_file(GEMM).num_instructions
    assert all({"name", "pid", "tid", "ts", "dur"} <= set(e) for e in spans)
    assert max(e["ts"] + e["dur"] for e in spans) == json.loads(out)["cycles"]


def test_bin_timing_only_and_a_timing_override(capsys, tmp_path):
    bin_path = tmp_path / "gemm.bin"
    assemble_file(GEMM).save(bin_path)
    base = json.loads(run(capsys, "sim", GEMM, "--json")[1])
    fast = json.loads(run(capsys, "sim", bin_path, "--json", "--timing-only")[1])
    assert fast["cycles"] == base["cycles"] and fast["timing_only"] is True
    code, out, _ = run(capsys, "sim", bin_path, "--json", "-t", "npu-edge -dram-bw=4")
    slow = json.loads(out)
    assert code == 0 and slow["cycles"] > base["cycles"] and "-dram-bw=4" in slow["target"]


def test_fault_exits_1_with_the_fault_message(capsys, tmp_path, gemm_inputs):
    arrays, flags = gemm_inputs
    rq = arrays["RQ"].copy()
    rq[3, 1] = 99  # a shift the vector unit refuses: only the run can find it
    np.save(tmp_path / "RQ.npy", rq)
    code, out, err = run(capsys, "sim", GEMM, *flags)
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.startswith("npusim: run 1 of gemm_tile.s on npu-edge faulted: core0.vector ")
    assert "vrequant" in err and "99" in err and len(err.splitlines()) <= 3


def test_deadlock_names_every_waiting_unit(capsys, tmp_path):
    src = tmp_path / "dead.s"
    src.write_text(".target npu-tiny\nwait unit=matrix, sem=0\nhalt\n")
    code, _, err = run(capsys, "sim", src)
    assert code == 1 and "DeadlockError" in err
    assert "core0.matrix: wait sem=0" in err and "core0.dma0: idle" in err


def test_cycle_limit_is_a_fault(capsys):
    code, _, err = run(capsys, "sim", GEMM, "--max-cycles", "100")
    assert code == 1 and "CycleLimitExceeded" in err and "max_cycles=100" in err
    with pytest.raises(SystemExit) as e:  # argparse's own usage error
        main(["sim", str(GEMM), "--max-cycles", "0"])
    assert e.value.code == 2 and "must be >= 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("argv, match", [
    (["-t", "npu-tiny"], "built for npu-edge cannot run on npu-tiny: -array=16x16 vs -array=4x4"),
    (["-t", "npu-edgy"], "-t 'npu-edgy': unknown target kind 'npu-edgy'"),
    (["--input", "B=x.npy"], "declares no tensor 'B'; declared: A, W, RQ, C"),
    (["--output", "Q=x.npy"], "declares no tensor 'Q'"),
    (["--input", "A"], "--input 'A' is not NAME=FILE.npy"),
    (["--input", "A=/nonexistent.npy"], "--input A=/nonexistent.npy: cannot read a .npy array"),
    (["--timing-only", "--output", "C=c.npy"], "--output needs data, but --timing-only"),
])
def test_usage_errors_are_one_line_and_exit_2(capsys, argv, match):
    code, out, err = run(capsys, "sim", GEMM, *argv)
    assert code == 2 and out == "" and match in one_line_error(err)


def test_input_shape_and_dtype_mismatch(capsys, tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((16, 8), np.int8))
    np.save(tmp_path / "w.npy", np.full((16, 16), 300))
    _, _, err = run(capsys, "sim", GEMM, "--input", f"A={tmp_path / 'a.npy'}")
    assert "array is int8[16,8], tensor 'A' is int8[16,16]" in one_line_error(err)
    _, _, err = run(capsys, "sim", GEMM, "--input", f"W={tmp_path / 'w.npy'}")
    assert "int64[16,16] with values that do not fit tensor 'W' (int8[16,16])" in err


def test_input_files_that_are_not_one_npy_array(capsys, tmp_path):
    np.savez(tmp_path / "a.npz", A=np.zeros((16, 16), np.int8))
    (tmp_path / "a.txt").write_text("1 2 3\n")
    np.save(tmp_path / "obj.npy", np.array([{}], dtype=object), allow_pickle=True)
    for name, part in [("a.npz", "it is an .npz archive; save the one array with numpy.save"),
                       ("a.txt", "not a .npy file of numbers; write one with numpy.save"),
                       ("obj.npy", "not a .npy file of numbers")]:
        code, _, err = run(capsys, "sim", GEMM, "--input", f"A={tmp_path / name}")
        assert code == 2 and part in one_line_error(err), err


def test_a_program_whose_target_is_unknown(capsys, tmp_path):
    from isa import encode_fields
    from isa.asm import Program
    path = tmp_path / "p.bin"
    Program(cores=[[encode_fields("halt")]], target="npx -foo=1").save(path)
    for extra in ([], ["-t", "npu-edge"]):  # with -t the program's target is still checked
        code, _, err = run(capsys, "sim", path, *extra)
        assert code == 2 and one_line_error(err).startswith(
            f"npusim: error: {path}: its target 'npx -foo=1' is invalid: unknown target kind")


def test_missing_program_and_assembly_errors(capsys, tmp_path):
    code, _, err = run(capsys, "sim", tmp_path / "nope.bin")
    assert code == 2 and "cannot read program" in one_line_error(err)
    bad = tmp_path / "bad.s"
    bad.write_text(".target npu-tiny\ngemm ibuf[0], wbuf[0], abuf[0], m=4, k=9, n=4\n")
    code, _, err = run(capsys, "sim", bad)
    assert code == 2 and err.startswith(f"{bad}:2:") and "error:" in err


def test_assembly_without_target_takes_it_from_t(capsys, tmp_path):
    src = tmp_path / "nop.s"
    src.write_text("nop\nhalt\n")
    code, _, err = run(capsys, "sim", src)
    assert code == 2 and "names no target (no .target line); pass -t" in one_line_error(err)
    code, out, _ = run(capsys, "sim", src, "-t", "npu-tiny", "--json")
    assert code == 0 and json.loads(out)["instructions"] == 2
    src.write_text("nop\nload chan=1, sram=ibuf[0], dram=0, rows=1, cols=1, stride=1\n")
    code, _, err = run(capsys, "sim", src, "-t", "npu-tiny")  # checked against -t: 1 DMA engine
    assert code == 2 and err.startswith(f"{src}:2:") and "chan" in err


def test_console_script_end_to_end(tmp_path):
    exe = Path(sys.executable).with_name("npusim")
    proc = subprocess.run([str(exe), "sim", str(GEMM), "--json", "--timing-only"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["timing_only"] is True
