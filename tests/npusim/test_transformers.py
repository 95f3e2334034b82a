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


def test_bert_tiny_attention_is_within_1_5x_of_its_roofline():
    # one layer at bert-tiny's full size, compiled as `npusim run` does (the fastest of the
    # neighbouring Targets' programs): the per-head Softmax tiles run one after another, so
    # P.V of head 0 overlaps the Softmax of head 1 (interleaved, both finished late and the
    # matrix unit idled: 1.60x)
    import re
    c = flow.compile("bert-tiny", "npu-edge", num_calib=1, layers=1)
    rows = [x for x in flow.simulate(c, timing_only=True).to_json()["layers"]
            if re.match(r"l0\.attn\.", x["name"])]
    ratio = sum(x["cycles"] for x in rows) / sum(x["roofline_cycles"] for x in rows)
    assert len(rows) == 7 and ratio <= 1.5, ratio


def _attention_graph(seq: int = 16, hidden: int = 32, heads: int = 2):
    """LayerNorm, Q/K/V, causal Q.K^T / sqrt(d), Softmax, P.V, output projection (no GELU:
    a table op, int8 only)."""
    import numpy as np

    from compiler.frontend.builder import GraphBuilder
    rng = np.random.default_rng(0)
    b = GraphBuilder("attention")
    x = b.input("x", (1, seq, hidden))
    ln = b.op("nn.layer_norm", [x, rng.uniform(0.8, 1.2, hidden).astype(np.float32),
                                rng.normal(0, 0.1, hidden).astype(np.float32)], name="ln")
    d = hidden // heads

    def proj(name, perm):
        y = b.dense(ln, rng.normal(0, hidden ** -0.5, (hidden, hidden)).astype(np.float32),
                    name=name)
        return b.transpose(b.reshape(y, (1, seq, heads, d), name=f"{name}.r"), perm,
                           name=f"{name}.t")
    q, kt, v = proj("q", (0, 2, 1, 3)), proj("k", (0, 2, 3, 1)), proj("v", (0, 2, 1, 3))
    mask = np.where(np.tril(np.ones((seq, seq), bool)), 0, -1e4).astype(np.float32)
    s = b.op("nn.matmul", [q, kt], name="scores", alpha=d ** -0.5)
    p = b.op("nn.softmax", [s, mask.reshape(1, 1, seq, seq)], name="probs", axis=-1)
    ctx = b.transpose(b.matmul(p, v, name="ctx"), (0, 2, 1, 3), name="ctx.t")
    y = b.dense(b.reshape(ctx, (1, seq, hidden), name="ctx.m"),
                rng.normal(0, hidden ** -0.5, (hidden, hidden)).astype(np.float32), name="out")
    return b.build(y)


def test_attention_runs_on_the_fp16_path():
    """fp16 Targets compute the float graph: the same layers, the IEEE forms of the row
    instructions (vexp, vrecip, vrsqrt), fp32 accumulation."""
    c = flow.compile(_attention_graph(), "npu-edge -dtype=fp16", evaluate=None)
    layers = [(layer["kind"], layer["note"]) for layer in c.artifact.layers]
    assert [k for k, _ in layers] == ["layernorm", "conv", "conv", "conv", "matmul", "softmax",
                                      "matmul", "conv"]
    assert "B^T rows (wt=1)" in layers[4][1] and "masked" in layers[5][1]
    v = flow.verify(c, flow.simulate(c))
    assert v.verified is True and v.snr_db > 50, v


def test_bert_tiny_with_its_gelu_runs_on_the_fp16_path():
    """The whole block on an fp16 Target: GELU (erf) as the float vector program of
    compiler.lower.vecfn (vrecip and vexp in their IEEE forms), the rest as above."""
    c = flow.compile("bert-tiny", "npu-edge -dtype=fp16", evaluate=None,
                     seq=16, hidden=32, heads=2, layers=2)
    # eltwise: the position embedding added to the token rows the host gathered
    assert {layer["kind"] for layer in c.artifact.layers} == \
        {"conv", "eltwise", "layernorm", "matmul", "softmax", "vecfn"}
    assert [e.pre for e in c.artifact.inputs] == [(("gather", ("emb.word_table", 0)),)]
    v = flow.verify(c, flow.simulate(c))
    assert v.verified is True and v.snr_db > 50, v


def test_bert_and_gpt2_take_token_ids_looked_up_on_the_host():
    for name in ("bert-tiny", "gpt2-decode"):
        c = _compile(name, "npu-edge")
        ids = next(e for e in c.artifact.inputs if e.pre)
        assert (ids.model_name, ids.pre) == ("input_ids", (("gather", ("emb.word_table", 0)),))
        assert c.module.input_shapes()["input_ids"] == (1, 1 if "decode" in name else 16)
        assert [x["name"] for x in c.artifact.layers][0] == "emb.pos"  # the position add
    # the embedded-input form stays: the same blocks over the embedded sequence
    c = flow.compile("bert-tiny", "npu-edge", evaluate=None, num_calib=2, embedded=True,
                     **SMALL["bert-tiny"])
    assert [(e.model_name, e.pre) for e in c.artifact.inputs] == [("embeddings", ())]
    assert flow.verify(c, flow.simulate(c)).bit_exact is True


def test_vit_prepends_its_class_token_and_classifies_from_it():
    c = _compile("vit-tiny", "npu-edge")
    layers = {x["name"]: x for x in c.artifact.layers}
    assert layers["cls"]["kind"] == "concat"   # the constant class token, then 2 x 2 patches
    assert c.module.graph.type_of("pos").shape == (1, 5, 48)
    assert c.module.graph.type_of("cls.out").shape == (1, 1, 48)  # its row into the head
    assert layers["l0.attn.probs"]["note"] == "unnormalized (P.V divides)"


def test_vit_is_calibrated_at_a_percentile_unless_a_pipeline_is_named():
    from compiler.build import DEFAULT_PIPELINE, build_quantized, default_pipeline
    assert "calibrate(method=percentile, percentile=99.9)" in default_pipeline("vit-tiny")
    assert default_pipeline("bert-tiny") == DEFAULT_PIPELINE
    kw = dict(SMALL["vit-tiny"], layers=1)
    assert "method=percentile" in str(build_quantized("vit-tiny", num_calib=1, **kw).pipeline)
    named = build_quantized("vit-tiny", num_calib=1, pipeline=DEFAULT_PIPELINE, **kw)
    assert "method=absmax" in str(named.pipeline)
