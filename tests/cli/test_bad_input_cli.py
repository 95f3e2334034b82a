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


def _onnx(path, nodes, outputs, initializers=(), external=False):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs]
    inits = [numpy_helper.from_array(np.ones(s, np.float32), n) for n, s in initializers]
    model = helper.make_model(helper.make_graph(nodes, "probe", [x], outs, inits),
                              opset_imports=[helper.make_opsetid("", 13)])
    if external:
        onnx.save_model(model, path, save_as_external_data=True, location="w.data",
                        size_threshold=0)
    else:
        onnx.save(model, path)
    return path


def test_onnx_files_that_compute_nothing_or_lack_data_are_one_line(capsys, tmp_path):
    from onnx import helper
    matmul = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    cases = [
        (_onnx(tmp_path / "empty.onnx", [], [("x", [1, 4])]),
         "model output 'x' is the model input 'x' itself: no node computes it"),
        (_onnx(tmp_path / "init.onnx", matmul, [("y", [1, 3]), ("w", [4, 3])], [("w", [4, 3])]),
         "model output 'w' is a constant (an initializer), not computed by any node"),
    ]
    ext = _onnx(tmp_path / "ext.onnx", matmul, [("y", [1, 3])], [("w", [4, 3])], external=True)
    (tmp_path / "w.data").unlink()
    cases.append((ext, f"cannot read ONNX model '{ext}': Data of TensorProto"))
    for path, needle in cases:
        code, out, err = run(capsys, "run", path)
        assert code == 2 and out == "", err
        assert needle in one_line_error(err)
    assert one_line_error(err).endswith("; are its external data files beside it?\n")


def test_sim_runs_an_artifacts_program_with_its_constants(capsys, tmp_path):
    """`npusim sim DIR/program.bin` once ran without the artifact's constants (all zeros) and
    knew only the program's tensor names: it now runs as the artifact does, by either name."""
    import numpy as np

    from npusim import flow
    art_dir = tmp_path / "art"
    compiled = flow.compile("small_cnn", "npu-tiny")
    compiled.artifact.save(art_dir)
    x = np.random.default_rng(0).integers(-128, 128, (1, 32, 32, 3)).astype(np.int8)
    np.save(tmp_path / "x.npy", x)
    _, want = flow.execute(compiled.artifact, {"input.nhwc": x})
    for name in ("input.nhwc", "input_nhwc"):  # the manifest's name, the program's name
        y = tmp_path / f"y_{name}.npy"
        code, out, err = run(capsys, "sim", art_dir / "program.bin", "--input",
                             f"{name}={tmp_path / 'x.npy'}", "--output", f"fc2={y}")
        assert code == 0 and err == "", err
        assert np.array_equal(np.load(y), want["fc2"]) and np.any(np.load(y))
    code, _, err = run(capsys, "sim", art_dir / "program.bin", "--input", f"bogus={y}")
    assert code == 2 and one_line_error(err).endswith(
        "belongs to the compiled model 'small_cnn', whose tensors are input.nhwc (or "
        "input_nhwc), fc2\n")


def test_a_declared_output_shape_that_disagrees_is_an_error_naming_both(capsys, tmp_path):
    from onnx import helper
    matmul = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    path = _onnx(tmp_path / "decl.onnx", matmul, [("y", [1, 5])], [("w", [4, 3])])
    code, out, err = run(capsys, "run", path)
    assert code == 2 and one_line_error(err) == (
        "npusim: error: ONNX output 'y' is declared with shape [1, 5], but the graph computes "
        "[1, 3] for it; fix the declaration (or leave its shape out)\n")
    ok = _onnx(tmp_path / "sym.onnx", matmul, [("y", ["N", 3])], [("w", [4, 3])])
    from compiler.frontend import import_onnx
    assert import_onnx(ok).type_of(import_onnx(ok).outputs[0]).shape == (1, 3)
