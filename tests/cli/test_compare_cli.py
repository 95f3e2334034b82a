"""`npusim run MODEL --compare cpu,gpu` (backends object in --json, table rows, labels,
speedups, exit codes, one-line errors) and `npusim compile MODEL -t cpu-host -o DIR`."""

import json
import shutil

import pytest

from cli_helpers import one_line_error, run

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


@pytest.fixture
def no_gpu(monkeypatch):
    """The GPU figure is an estimate on any host (a GPU host would measure it)."""
    from compiler.backends.gpu import toolchain
    monkeypatch.setattr(toolchain, "device_count", lambda: 0)


def test_json_has_a_backends_object(capsys, no_gpu):
    code, out, _ = run(capsys, "run", "small_cnn", "--compare", "cpu,gpu", "--json")
    assert code == 0
    s = json.loads(out)
    assert set(s["backends"]) == {"cpu", "gpu"}
    cpu, gpu = s["backends"]["cpu"], s["backends"]["gpu"]
    assert cpu["target"] == "cpu-host" and gpu["target"] == "gpu-a100"
    assert cpu["measured"] is True and cpu["verified"] is True and cpu["bit_exact"] is True
    assert gpu["measured"] is False and gpu["verified"] is None
    assert cpu["cpu_ms"] > 0 and gpu["cpu_ms"] is None
    for b in (cpu, gpu):
        assert b["dtype"] == "int8" and b["latency_ms"] > 0
        assert b["npu_speedup"] == pytest.approx(b["latency_ms"] / s["latency_ms"])


def test_table_labels_measured_and_estimated(capsys, no_gpu):
    code, out, _ = run(capsys, "run", "mlp", "--compare", "cpu,gpu-h100")
    assert code == 0
    lines = out.splitlines()
    head = lines.index(next(x for x in lines if x.startswith("backend ")))
    npu, cpu, gpu = (lines[head + i].split() for i in (2, 3, 4))
    assert npu[:2] == ["npu", "npu-edge"] and npu[3] == "simulated" and npu[-1] == "1x"
    assert cpu[:2] == ["cpu", "cpu-host"] and cpu[3:6] == ["measured", "yes", "(bit-exact)"]
    assert gpu[:2] == ["gpu-h100", "gpu-h100"] and gpu[3] == "estimated"
    assert float(gpu[-1].rstrip("x")) == pytest.approx(float(gpu[2]) / float(npu[2]), rel=4e-3)
    assert lines[-1].startswith("estimated: gpu-h100 (roofline")


def test_a_busy_host_is_reported_with_the_cpu_time():
    from npusim.cli.compare import table
    cpu = {"target": "cpu-host", "latency_ms": 10.0, "cpu_ms": 2.0, "measured": True,
           "verified": True, "bit_exact": True, "npu_speedup": 10.0}
    s = {"target": "npu-edge", "latency_ms": 1.0, "verified": True, "backends": {"cpu": cpu}}
    assert table(s).splitlines()[-1] == ("cpu: the host was busy: median wall 10 ms, CPU time "
                                         "2 ms (NPU speedup over that: 2x)")
    cpu["cpu_ms"] = 9.0  # within BUSY of the wall time: no note
    assert "busy" not in table(s)


def test_float_npu_compares_float_code(capsys, no_gpu):
    code, out, _ = run(capsys, "run", "mlp", "-t", "npu-edge -dtype=fp16", "--compare", "cpu",
                       "--json")
    assert code == 0
    cpu = json.loads(out)["backends"]["cpu"]
    assert cpu["dtype"] == "float32" and cpu["verified"] is True and cpu["bit_exact"] is None
    assert 0 <= cpu["max_rel_error"] <= 1e-4


@pytest.mark.parametrize("spec,message", [
    ("tpu", "--compare 'tpu': unknown target kind 'tpu'"),
    ("npu-tiny", "--compare 'npu-tiny' is a npu target; compare with cpu or gpu targets"),
    (",", "--compare needs at least one backend"),
    ("cpu-host -cores=0", "--compare 'cpu-host -cores=0':")])
def test_bad_compare_lists_fail_before_compiling(capsys, spec, message):
    code, out, err = run(capsys, "run", "mlp", "--compare", spec)
    assert code == 2 and out == "" and message in one_line_error(err)


def test_compile_cpu_host_leaves_sources_and_library(capsys, tmp_path):
    code, out, err = run(capsys, "compile", "mlp", "-t", "cpu-host", "-o", tmp_path / "c")
    assert code == 0, err
    assert sorted(f.name for f in (tmp_path / "c").iterdir()) == [
        "constants.bin", "libmodel.so", "manifest.json", "model.c"]
    assert "mlp for cpu-host: 3 kernels" in out and "model.c, libmodel.so (cc -O3" in out
    man = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert man["target"].startswith("cpu ") and man["entry"].startswith("void npu_model_run")


def test_compile_other_kinds_report_errors_in_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "compile", "nosuch", "-t", "cpu-host", "-o", tmp_path / "x")
    assert code == 2 and "unknown model 'nosuch'" in one_line_error(err)


def test_a_cuda_error_is_the_gpu_rows_one_line_error(capsys, monkeypatch, tmp_path):
    """On a GPU host a failing launch was a RuntimeError traceback; now the NPU result stands
    and the gpu row says what failed."""
    from compiler.backends.gpu import toolchain
    from compiler.backends.gpu.module import GpuModule

    class FailingLibrary:
        def npu_gpu_bench(self, *args):
            return 2  # cudaErrorMemoryAllocation
    monkeypatch.setattr(GpuModule, "can_run", staticmethod(lambda: True))
    monkeypatch.setattr(toolchain, "compile_library", lambda *a, **k: tmp_path / "lib.so")
    monkeypatch.setattr(toolchain, "load", lambda lib: FailingLibrary())
    code, out, err = run(capsys, "run", "mlp", "--compare", "gpu", "--json")
    assert code == 1 and "Traceback" not in err
    gpu = json.loads(out)["backends"]["gpu"]
    assert gpu["error"].startswith("CUDA error 2 (cudaErrorMemoryAllocation) running ")
    assert gpu["verified"] is None and gpu["latency_ms"] is None
    code, out, _ = run(capsys, "run", "mlp", "--compare", "gpu")
    assert code == 1 and "gpu        gpu-a100       error: CUDA error 2" in out
