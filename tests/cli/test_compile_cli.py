"""`npusim compile -t gpu-...`: CUDA sources (and PTX where nvcc exists), as cpu targets get C."""

import json
import shutil

import pytest

from cli_helpers import run


def test_compile_gpu_writes_cuda_sources_and_ptx(capsys, tmp_path):
    out = tmp_path / "cu"
    code, stdout, err = run(capsys, "compile", "mlp", "-t", "gpu-a100", "-o", out)
    assert code == 0, err
    files = sorted(f.name for f in out.iterdir())
    nvcc = shutil.which("nvcc") or shutil.which("/usr/local/cuda/bin/nvcc")
    ptx = ["model.sm_80.ptx"] if nvcc else []
    assert files == sorted(["constants.bin", "manifest.json", "model.cu", *ptx])
    assert 'extern "C" int npu_gpu_bench(' in (out / "model.cu").read_text()
    man = json.loads((out / "manifest.json").read_text())
    assert man["target"].startswith("gpu ") and "launches" in man
    assert f"{out}: mlp for gpu-a100: 3 kernels" in stdout and "lines of CUDA; model.cu" in stdout
    if nvcc:
        assert ".target sm_80" in (out / "model.sm_80.ptx").read_text()
        assert "model.sm_80.ptx" in stdout
    else:
        assert "no PTX (nvcc not found)" in stdout


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
def test_compile_gpu_ptx_follows_the_target_arch(capsys, tmp_path):
    code, _, err = run(capsys, "compile", "mlp", "-t", "gpu-h100", "-o", tmp_path / "h")
    assert code == 0, err
    assert (tmp_path / "h" / "model.sm_90.ptx").exists()
