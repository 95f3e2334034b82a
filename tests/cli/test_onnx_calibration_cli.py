"""--calibration (the user's own data instead of random inputs) and --resolution on an ONNX
file with symbolic height and width."""

import json

import numpy as np
import pytest

from cli_helpers import one_line_error, run

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx_files import conv_onnx  # noqa: E402


def _input_scale(art) -> float:
    manifest = json.loads((art / "manifest.json").read_text())
    return manifest["inputs"][0]["scale"]


def test_calibration_npz_and_npy_folder_set_the_input_scale(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", "off")
    path = conv_onnx(tmp_path / "m.onnx")
    data = np.random.default_rng(1).uniform(-1, 1, (3, 3, 16, 16)).astype(np.float32)
    data[1, 0, 0, 0] = 10.0                       # the largest |x| of the data: 10
    np.savez(tmp_path / "cal.npz", x=data)        # three samples stacked on axis 0
    code, _, _ = run(capsys, "compile", path, "-t", "npu-tiny", "-o", tmp_path / "a",
                     "--calibration", tmp_path / "cal.npz")
    assert code == 0 and _input_scale(tmp_path / "a") == pytest.approx(10.0 / 127, rel=1e-6)
    folder = tmp_path / "npy"
    folder.mkdir()
    for k in range(3):
        np.save(folder / f"{k}.npy", data[k:k + 1] * 0.5)
    code, _, _ = run(capsys, "compile", path, "-t", "npu-tiny", "-o", tmp_path / "b",
                     "--calibration", folder)
    assert code == 0 and _input_scale(tmp_path / "b") == pytest.approx(5.0 / 127, rel=1e-6)
    code, _, _ = run(capsys, "compile", path, "-t", "npu-tiny", "-o", tmp_path / "c")
    assert code == 0 and _input_scale(tmp_path / "c") != _input_scale(tmp_path / "a")


def test_calibration_data_of_the_wrong_shape_is_a_one_line_error(capsys, tmp_path):
    path = conv_onnx(tmp_path / "m.onnx")
    np.savez(tmp_path / "cal.npz", x=np.zeros((2, 3, 8, 8), np.float32))
    code, _, err = run(capsys, "run", path, "-t", "npu-tiny", "--calibration",
                       tmp_path / "cal.npz")
    assert code == 2 and "calibration sample 0: input 'x' is (1, 3, 16, 16), the data has " \
        "shape (2, 3, 8, 8)" in one_line_error(err)
    np.savez(tmp_path / "named.npz", image=np.zeros((1, 3, 16, 16), np.float32))
    code, _, err = run(capsys, "run", path, "-t", "npu-tiny", "--calibration",
                       tmp_path / "named.npz")
    assert code == 2 and one_line_error(err) == (
        "npusim: error: calibration sample 0 lacks input(s) x (it has image): name each array "
        "after the model input it feeds\n")
    code, _, err = run(capsys, "run", path, "-t", "npu-tiny", "--calibration",
                       tmp_path / "missing.npz")
    assert code == 2 and "--calibration" in one_line_error(err)


def test_resolution_sets_the_symbolic_height_and_width_of_an_onnx_file(capsys, tmp_path):
    path = conv_onnx(tmp_path / "dyn.onnx", dims=["N", 3, "H", "W"], out_dims=["N", 8, "H", "W"])
    code, _, _ = run(capsys, "compile", path, "-t", "npu-tiny", "-o", tmp_path / "a",
                     "--resolution", "24")
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert code == 0 and manifest["inputs"][0]["shape"] in ([1, 3, 24, 24], [1, 24, 24, 3])
    code, out, _ = run(capsys, "run", path, "-t", "npu-tiny", "--resolution", "12", "--json")
    assert code == 0 and json.loads(out)["verified"] is True
    code, _, err = run(capsys, "run", path, "-t", "npu-tiny", "--resolution", "12",
                       "--input-shape", "x=1x3x8x8")
    assert code == 2 and "gets both --input-shape 1x3x8x8 and --resolution 12" in \
        one_line_error(err)
