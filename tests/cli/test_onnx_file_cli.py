"""Issue 12's probes with the user's own ONNX file: verification runs onnxruntime on that file
(not our re-export), files onnx's checker or onnxruntime refuse are refused with their
reason, and --input-shape fixes symbolic input dimensions."""

import json

import pytest

from cli_helpers import one_line_error, run

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402

from onnx_files import conv_onnx  # noqa: E402


# ---------------------------------------------------------------- the user's own file

def test_verification_runs_onnxruntime_on_the_users_file(capsys, tmp_path):
    path = conv_onnx(tmp_path / "m.onnx")
    code, out, _ = run(capsys, "run", path, "-t", "npu-tiny", "--json")
    s = json.loads(out)
    assert code == 0 and s["verified"] is True and s["reference"] == "onnxruntime on m.onnx"
    code, out, _ = run(capsys, "run", path, "-t", "npu-tiny")
    assert "vs onnxruntime on m.onnx: top-1 agreement" in out


def test_an_import_that_changed_the_model_is_caught(tmp_path, monkeypatch):
    """An importer that got the model wrong (here: every weight negated) builds, runs and
    matches its own integer reference bit for bit; only the user's file can say it is not
    the model. Against our re-export (before) the SNR was ~36 dB; against the file it is < 0."""
    from compiler.frontend import onnx_import
    from npusim import flow
    monkeypatch.setenv("NPUSIM_CACHE_DIR", "off")  # keep the wrong import out of the cache
    real = onnx_import.import_onnx

    def wrong_import(model, **kw):
        g = real(model, **kw)
        g.constants["w"] = -g.constants["w"]
        return g
    monkeypatch.setattr(onnx_import, "import_onnx", wrong_import)
    compiled = flow.compile(str(conv_onnx(tmp_path / "m.onnx")), "npu-tiny")
    result = flow.simulate(compiled, seed=0)
    v = flow.verify(compiled, result)
    assert v.bit_exact is True and v.reference == "onnxruntime on m.onnx"
    assert v.snr_db < 0


def test_a_file_changed_after_compiling_is_not_verified_against(tmp_path):
    from compiler.errors import FrontendError
    from npusim import flow
    path = conv_onnx(tmp_path / "m.onnx")
    compiled = flow.compile(str(path), "npu-tiny")
    result = flow.simulate(compiled, seed=0)
    conv_onnx(path, opset=13)  # other bytes under the same name
    with pytest.raises(FrontendError, match=r"ONNX model '.*m.onnx' changed since it was "
                                            r"compiled .*; compile it again"):
        flow.verify(compiled, result)


def test_external_data_changed_after_compiling_is_caught_too(tmp_path):
    """The weights in an external data file are part of the model the reference runs."""
    from compiler.errors import FrontendError
    from npusim import flow
    path = tmp_path / "ext.onnx"
    model = onnx.load(conv_onnx(path))
    onnx.save_model(model, path, save_as_external_data=True, location="w.data",
                    size_threshold=0)
    compiled = flow.compile(str(path), "npu-tiny")
    result = flow.simulate(compiled, seed=0)
    assert flow.verify(compiled, result).reference == "onnxruntime on ext.onnx"
    data = bytearray((tmp_path / "w.data").read_bytes())
    data[:4] = bytes(4)  # one weight zeroed, the .onnx file untouched
    (tmp_path / "w.data").write_bytes(bytes(data))
    with pytest.raises(FrontendError, match="ext.onnx' changed since it was compiled"):
        flow.verify(compiled, result)


def test_zoo_models_keep_onnxruntime_on_our_export():
    from npusim import flow
    compiled = flow.compile("small_cnn", "npu-tiny")
    assert flow.verify(compiled, flow.simulate(compiled, seed=0)).reference == "onnxruntime"


# ---------------------------------------------------------------- files others refuse

def test_a_file_onnxruntime_refuses_is_refused_with_its_reason(capsys, tmp_path):
    """An opset-99 model was compiled against our opset-17 re-export and reported
    'verified yes, top-1 98%'; onnxruntime cannot load it."""
    path = conv_onnx(tmp_path / "op99.onnx", opset=99)
    code, out, err = run(capsys, "run", path, "-t", "npu-tiny")
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert line.startswith(f"npusim: error: ONNX model '{path}' is rejected by onnxruntime ")
    assert "Opset 99 is under development" in line and "onnxruntime_src" not in line
    code, _, err = run(capsys, "compile", path, "-t", "npu-tiny", "-o", tmp_path / "art")
    assert code == 2 and "is rejected by onnxruntime" in one_line_error(err)


def test_files_onnxs_checker_refuses_are_refused_with_its_reason(capsys, tmp_path):
    no_shape = conv_onnx(tmp_path / "noshape.onnx", out_dims=None)  # onnxruntime takes it
    code, out, err = run(capsys, "run", no_shape, "-t", "npu-tiny")
    assert code == 2 and out == "" and one_line_error(err) == (
        f"npusim: error: ONNX model '{no_shape}' is rejected by onnx's checker: Field 'shape' "
        "of 'type' is required but missing; fix the file (onnx.checker.check_model names the "
        "same)\n")
    wrong = helper.make_tensor_value_info("c", TensorProto.FLOAT, [1, 5, 16, 16])
    vi = conv_onnx(tmp_path / "vi.onnx", value_info=[wrong])  # the conv makes 8 channels
    code, out, err = run(capsys, "run", vi, "-t", "npu-tiny")
    line = one_line_error(err)
    assert code == 2 and line.startswith(
        f"npusim: error: ONNX model '{vi}' is rejected by onnx's checker (full_check): ")
    assert "Inferred shape and existing shape differ in dimension 1: (8) vs (5)" in line


def test_the_rejection_is_a_frontend_error_in_python(tmp_path):
    from compiler.errors import FrontendError, OnnxRejectedError
    from isa.errors import NpusimError
    from npusim import flow
    assert issubclass(OnnxRejectedError, FrontendError) and issubclass(FrontendError,
                                                                       NpusimError)
    with pytest.raises(OnnxRejectedError, match="rejected by onnxruntime"):
        flow.compile(str(conv_onnx(tmp_path / "op99.onnx", opset=99)), "npu-tiny")


# ---------------------------------------------------------------- --input-shape

def test_input_shape_fixes_symbolic_dimensions(capsys, tmp_path):
    path = conv_onnx(tmp_path / "sym.onnx", dims=["N", 3, "H", "W"], out_dims=["N", 8, "H", "W"])
    code, _, err = run(capsys, "run", path, "-t", "npu-tiny")
    assert code == 2 and one_line_error(err) == (
        "npusim: error: ONNX input 'x' has dynamic shape ['?', 3, '?', '?']; give its shape with "
        "--input-shape x=Nx3xHxW, each symbolic dimension a number (npusim run/compile), or "
        "input_shapes={'x': (1, ...)} (Python)\n")
    code, out, _ = run(capsys, "run", path, "-t", "npu-tiny", "--json",
                       "--input-shape", "x=1x3x16x12")
    s = json.loads(out)
    assert code == 0 and s["verified"] is True and s["reference"] == "onnxruntime on sym.onnx"
    code, out, _ = run(capsys, "compile", path, "-t", "npu-tiny", "-o", tmp_path / "art",
                       "--input-shape", "x=2x3x8x8")
    from compiler.artifact import Artifact
    assert code == 0 and Artifact.load(tmp_path / "art").inputs[0].shape == (2, 8, 8, 3)


@pytest.mark.parametrize("flags,message", [
    (["x=1x3x16"], "input shape [1, 3, 16] for ONNX input 'x' contradicts its declared shape "
                   "['?', 3, '?', '?']: give 4 dimensions that keep the fixed ones"),
    (["x=1x4x16x16"], "input shape [1, 4, 16, 16] for ONNX input 'x' contradicts its declared "
                      "shape ['?', 3, '?', '?']: give 4 dimensions that keep the fixed ones"),
    (["y=1x3x16x16"], "an input shape is given for 'y', not an input of the ONNX model (its "
                      "inputs: x)"),
    (["x=0x3x4x4"], "--input-shape 'x=0x3x4x4': dimensions must be >= 1, got 0x3x4x4"),
    (["x1x3"], "--input-shape 'x1x3': expected NAME=SHAPE with the dimensions joined by 'x', "
               "e.g. input=1x3x224x224"),
    (["x=1x3x-4x4"], "--input-shape 'x=1x3x-4x4': expected NAME=SHAPE with the dimensions "
                     "joined by 'x', e.g. input=1x3x224x224"),
    (["x="], "--input-shape 'x=': expected NAME=SHAPE with the dimensions joined by 'x', e.g. "
             "input=1x3x224x224"),
    (["x=1x3x4x4", "x=1x3x8x8"], "--input-shape 'x=1x3x8x8': input 'x' is given twice"),
])
def test_bad_input_shapes_are_one_line(capsys, tmp_path, flags, message):
    path = conv_onnx(tmp_path / "sym.onnx", dims=["N", 3, "H", "W"], out_dims=["N", 8, "H", "W"])
    argv = [a for f in flags for a in ("--input-shape", f)]
    code, out, err = run(capsys, "run", path, "-t", "npu-tiny", *argv)
    assert code == 2 and out == "" and one_line_error(err) == f"npusim: error: {message}\n"


def test_input_shape_applies_to_onnx_files_only(capsys, tmp_path):
    code, _, err = run(capsys, "run", "small_cnn", "--input-shape", "x=1x3x8x8")
    assert code == 2 and one_line_error(err) == (
        "npusim: error: input shapes apply to ONNX models with symbolic input dimensions, not "
        "to 'small_cnn', a zoo model (its shapes are set by resolution); drop them\n")
    art = tmp_path / "art"
    run(capsys, "compile", "small_cnn", "-t", "npu-tiny", "-o", art)
    code, _, err = run(capsys, "run", art, "--input-shape", "x=1x3x8x8")
    assert code == 2 and one_line_error(err) == (
        f"npusim: error: --input-shape applies to ONNX files; '{art}' is a compiled artifact "
        "(its shapes are fixed): recompile the model\n")
