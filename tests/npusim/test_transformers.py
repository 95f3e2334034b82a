"""Transformer zoo models in small configurations, end to end: compiled for the NPU,
simulated, bit-exact against the integer reference and close to onnxruntime on the float
model; Softmax and LayerNorm run on the NPU (row layers), Q.K^T and P.V on the matrix engine."""

import pytest

from npusim import flow

SMALL = {
    "bert-tiny": dict(seq=16, hidden=32, heads=2, layers=2),
    "vit-tiny": dict(resolution=32, hidden=48, heads=3, layers=2, num_classes=10),
    "gpt2": dict(seq=12, hidden=64, heads=4, layers=2, vocab=96),
    "gpt2-decode": dict(seq=12, hidden=64, heads=4, layers=2, vocab=96, decode=True),
}


# a decode step has one query row per head: its scores' calibrated range needs more samples
CALIB = {"gpt2-decode": 32}


def _compile(name: str, target: str):
    return flow.compile(name.removesuffix("-decode"), target, evaluate=None,
                        num_calib=CALIB.get(name, 8), **SMALL[name])


@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_transformer_is_bit_exact_and_close_to_onnxruntime(name):
    c = _compile(name, "npu-edge")
    kinds = {layer["kind"] for layer in c.artifact.layers}
    assert {"matmul", "softmax", "layernorm"} <= kinds
    r = flow.simulate(c, seed=1)
    v = flow.verify(c, r)
    assert v.bit_exact is True and v.verified is True
    assert v.snr_db > 25.0, v


@pytest.mark.parametrize("target", ["npu-tiny", "npu-server"])
def test_bert_tiny_is_bit_exact_on_other_targets(target):
    c = flow.compile("bert-tiny", target, evaluate=None, num_calib=2,
                     seq=8, hidden=16, heads=2, layers=1)
    r = flow.simulate(c)
    assert flow.verify(c, r).bit_exact is True


def test_decode_step_reads_and_appends_the_kv_cache():
    c = _compile("gpt2-decode", "npu-edge")
    ins = {e.model_name: e for e in c.artifact.inputs}
    outs = {e.model_name: e for e in c.artifact.outputs}
    assert {f"past_{kv}{i}" for kv in "kv" for i in range(2)} <= set(ins)
    assert [o for o in outs if "cache" in o] == [f"l{i}.attn.{kv}_cache" for i in range(2)
                                                 for kv in "kv"]
    assert tuple(c.artifact.outputs[1].shape)[-2:] == (13, 64)  # 12 cached + the new token


def test_decode_is_memory_bound_near_its_dram_roofline():
    # one GPT-2-wide layer (its weight stream dominates, as in the full model)
    c = flow.compile("gpt2", "npu-edge", evaluate=None, num_calib=1, seq=32, hidden=768,
                     heads=12, layers=1, vocab=1024, decode=True)
    r = flow.simulate(c, timing_only=True)
    s = r.to_json()
    assert s["cycles"] <= 1.25 * s["roofline_cycles"], s["cycles"] / s["roofline_cycles"]
