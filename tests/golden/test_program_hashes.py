"""Compiled programs stay byte-identical to revision a40910b: every zoo model's program.bin and
constants per NPU Target tag (npu-tiny, npu-edge, npu-server, fp16), and its C and CUDA sources.
A codegen change that moves one regenerates program_hashes.json in a commit naming why."""

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).parent
GOLDEN = json.loads((HERE / "program_hashes.json").read_text())


def load_regen():
    spec = importlib.util.spec_from_file_location("regen_program_hashes",
                                                  HERE / "regen_program_hashes.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


REGEN = load_regen()


@pytest.mark.parametrize("model", REGEN.MODELS)
@pytest.mark.parametrize("target", REGEN.NPU_TARGETS)
def test_npu_program_unchanged(model, target):
    assert REGEN.npu_hashes(model, target) == GOLDEN[f"{model} | {target}"]


@pytest.mark.parametrize("model", REGEN.MODELS)
@pytest.mark.parametrize("target", REGEN.CLIKE_TARGETS)
@pytest.mark.parametrize("dtype", REGEN.CLIKE_DTYPES)
def test_clike_source_unchanged(model, target, dtype):
    got = REGEN.sha(REGEN.clike_source(model, target, dtype))
    assert got == GOLDEN[f"{model} | {target} | {dtype}"]["source"]


def test_golden_covers_every_zoo_model():
    from compiler import zoo
    assert sorted(REGEN.MODELS + REGEN.NPU_ONLY) == zoo.list()
