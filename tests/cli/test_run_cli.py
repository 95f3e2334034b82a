"""`npusim run` and `npusim compile`: the table, --json fields, traces, artifacts, exit codes."""

import json

import pytest

from cli_helpers import one_line_error, run

JSON_KEYS = {"model", "target", "cycles", "latency_ms", "roofline_cycles", "utilization",
             "verified", "top1_agree", "snr_db", "energy_pj", "sim_wall_s", "layers"}
ROW_KEYS = {"name", "macs", "cycles", "utilization", "dram_bytes", "bound", "roofline_cycles"}


def test_run_json_has_every_field_and_consistent_totals(capsys):
    code, out, _ = run(capsys, "run", "small_cnn", "-t", "npu-tiny", "--json")
    assert code == 0
    s = json.loads(out)
    assert JSON_KEYS <= set(s) and all(ROW_KEYS <= set(r) for r in s["layers"])
    assert s["model"] == "small_cnn" and s["target"] == "npu-tiny"
    assert s["verified"] is True and s["bit_exact"] is True and s["top1_agree"] == 1.0
    assert s["snr_db"] > 20
    assert sum(r["cycles"] for r in s["layers"]) == s["cycles"]
    assert abs(s["roofline_cycles"] - sum(r["roofline_cycles"] for r in s["layers"])) < 1
    assert s["latency_ms"] == pytest.approx(s["cycles"] / 100e3)  # npu-tiny runs at 100 MHz
    macs = sum(r["macs"] for r in s["layers"])
    assert s["utilization"] == pytest.approx(macs / (s["cycles"] * 16))
    # no layer beats its own roofline bound
    assert all(r["cycles"] >= r["roofline_cycles"] * 0.999 for r in s["layers"] if r["macs"])


def test_run_prints_the_per_layer_table_and_totals(capsys):
    code, out, _ = run(capsys, "run", "mlp")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["layer", "kind", "MACs", "cycles"]
    assert any(line.startswith("fc1.matmul") for line in lines)
    assert "verified yes" in out and "roofline" in out and "latency" in out


def test_run_writes_a_chrome_trace(capsys, tmp_path):
    trace = tmp_path / "t.json"
    code, _, _ = run(capsys, "run", "mlp", "--json", "--trace", trace)
    assert code == 0
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name") == "gemm" for e in events)


@pytest.mark.parametrize("argv,needle", [
    (["run", "resnet19"], "unknown model 'resnet19'; did you mean 'resnet18'"),
    (["run", "nope.onnx"], "model file 'nope.onnx' does not exist"),
    (["run", "mlp", "-t", "npu-edgy"], "npu-edge"),
    (["run", "mlp", "-t", "cpu-host"], "is a cpu target"),
    (["run", "mlp", "-t", "npu -array=512x512"], "array"),
    (["compile", "mlp", "-t", "npu-edgy", "-o", "x"], "-t 'npu-edgy': unknown target kind"),
])
def test_bad_models_and_targets_are_one_line_errors(capsys, argv, needle):
    code, _, err = run(capsys, *argv)
    assert code == 2 and needle in one_line_error(err)


def test_resolution_of_an_onnx_file_is_a_one_line_error(capsys, tmp_path):
    import onnx

    from compiler import zoo
    from compiler.frontend.onnx_export import export_onnx
    path = tmp_path / "cnn.onnx"
    onnx.save(export_onnx(zoo.get("small_cnn", resolution=16)), str(path))
    for command in (["run", path], ["compile", path, "-o", tmp_path / "out"]):
        code, _, err = run(capsys, *command, "--resolution", "64")
        assert code == 2 and (f"resolution 64 applies to zoo image models (mobilenetv2, "
                              f"resnet18, resnet50, small_cnn, vit-tiny), not to '{path}', an "
                              "ONNX file") in one_line_error(err)
    code, _, err = run(capsys, "run", "mlp", "--resolution", "64")  # a zoo model without it
    assert code == 2 and "model 'mlp' has no parameter 'resolution'" in one_line_error(err)


def test_model_that_does_not_fit_is_a_one_line_error(capsys):
    code, _, err = run(capsys, "run", "resnet18", "-t", "npu-tiny", "--resolution", "32")
    assert code == 2 and "dram-mb" in one_line_error(err)


def test_an_onnx_file_runs_and_verifies(capsys, tmp_path):
    import onnx

    from compiler import zoo
    from compiler.frontend.onnx_export import export_onnx
    path = tmp_path / "cnn.onnx"
    onnx.save(export_onnx(zoo.get("small_cnn", resolution=16)), str(path))
    code, out, _ = run(capsys, "run", path, "--json")
    s = json.loads(out)
    assert code == 0 and s["verified"] and s["bit_exact"] and s["model"] == str(path)


@pytest.mark.parametrize("content,reason", [(b"not a model", "not a valid ONNX protobuf"),
                                             (b"", "it has no graph outputs")])
def test_bad_onnx_file_is_a_one_line_error(capsys, tmp_path, content, reason):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(content)
    code, _, err = run(capsys, "run", bad)
    assert code == 2 and f"cannot read ONNX model '{bad}': {reason}" in one_line_error(err)


def test_compile_then_run_the_artifact_gives_the_same_cycles(capsys, tmp_path):
    code, out, _ = run(capsys, "compile", "small_cnn", "-t", "npu-edge", "-o", tmp_path / "a")
    assert code == 0 and "instructions" in out
    files = {p.name for p in (tmp_path / "a").iterdir()}
    assert files == {"manifest.json", "program.bin", "program.s", "constants.bin"}
    code, out, _ = run(capsys, "run", tmp_path / "a", "--json")
    loaded = json.loads(out)
    code2, out2, _ = run(capsys, "run", "small_cnn", "--json")
    assert code == code2 == 0 and loaded["cycles"] == json.loads(out2)["cycles"]
    assert loaded["verified"] is None  # a bare artifact has no reference to check against


def test_corrupted_and_stale_artifacts_are_refused(capsys, tmp_path):
    d = tmp_path / "a"
    assert run(capsys, "compile", "mlp", "-o", d)[0] == 0
    blob = bytearray((d / "program.bin").read_bytes())
    blob[-7] ^= 0x10
    (d / "program.bin").write_bytes(bytes(blob))
    code, _, err = run(capsys, "run", d)
    assert code == 2 and "corrupted" in one_line_error(err)
    assert run(capsys, "compile", "mlp", "-o", d)[0] == 0
    manifest = json.loads((d / "manifest.json").read_text())
    manifest["isa_version"] = "0.9"
    (d / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = run(capsys, "run", d)
    assert code == 2 and "stale" in one_line_error(err) and "recompile" in err


def test_artifact_runs_on_a_target_differing_only_in_timing(capsys, tmp_path):
    d = tmp_path / "a"
    assert run(capsys, "compile", "mlp", "-o", d)[0] == 0
    slow = json.loads(run(capsys, "run", d, "-t", "npu-edge -dram-bw=4", "--json")[1])
    fast = json.loads(run(capsys, "run", d, "--json")[1])
    assert slow["cycles"] > fast["cycles"]
    code, _, err = run(capsys, "run", d, "-t", "npu-tiny")
    assert code == 2 and "cannot run on npu-tiny" in one_line_error(err)


def test_timing_only_skips_verification(capsys):
    code, out, _ = run(capsys, "run", "mlp", "--json", "--timing-only")
    s = json.loads(out)
    assert code == 0 and s["timing_only"] and s["verified"] is None


def test_unwritable_trace_is_a_one_line_error_for_models_and_artifacts(capsys, tmp_path):
    d = tmp_path / "a"
    assert run(capsys, "compile", "mlp", "-o", d)[0] == 0
    bad = tmp_path / "no" / "such" / "dir" / "t.json"
    for model in ("mlp", d):
        code, _, err = run(capsys, "run", model, "--trace", bad)
        assert code == 2 and "cannot write" in one_line_error(err), (model, err)
