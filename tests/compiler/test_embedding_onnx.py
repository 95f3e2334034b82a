"""Embedding lookups of token ids: a hand-built BERT-style ONNX embedding (Gather of int64 ids,
position Gather, Add, LayerNorm) imports, runs its lookup on the host (the quantized table's
rows gathered into the NPU's input), verifies bit-exact and against onnxruntime on the file."""

import json

import numpy as np
import pytest

from compiler.errors import CompilerError, FrontendError, QuantizationError
from compiler.frontend import import_onnx
from npusim import flow

SEQ, HIDDEN, VOCAB, POSITIONS = 16, 32, 100, 64


def embedding_model(token_types: bool = False, opset: int = 17):
    """input_ids (1, SEQ) int64 -> LayerNorm(word[ids] + pos[position_ids] (+ type[types])),
    as a HF BERT export writes it (position ids a constant initializer)."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal((VOCAB, HIDDEN)).astype(np.float32),
                                     "word"),
             numpy_helper.from_array((0.5 * rng.standard_normal((POSITIONS, HIDDEN)))
                                     .astype(np.float32), "pos"),
             numpy_helper.from_array(np.arange(SEQ, dtype=np.int64).reshape(1, SEQ), "pos_ids"),
             numpy_helper.from_array(rng.uniform(0.8, 1.2, HIDDEN).astype(np.float32), "gamma"),
             numpy_helper.from_array((0.1 * rng.standard_normal(HIDDEN)).astype(np.float32),
                                     "beta")]
    nodes = [helper.make_node("Gather", ["word", "input_ids"], ["w"], name="word_lookup"),
             helper.make_node("Gather", ["pos", "pos_ids"], ["p"], name="pos_lookup"),
             helper.make_node("Add", ["w", "p"], ["wp"], name="add_pos")]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, SEQ])]
    last = "wp"
    if token_types:
        inits.append(numpy_helper.from_array(
            (0.5 * rng.standard_normal((2, HIDDEN))).astype(np.float32), "types"))
        inputs.append(helper.make_tensor_value_info("token_type_ids", TensorProto.INT64,
                                                    [1, SEQ]))
        nodes.append(helper.make_node("Gather", ["types", "token_type_ids"], ["t"],
                                      name="type_lookup"))
        nodes.append(helper.make_node("Add", ["wp", "t"], ["wpt"], name="add_type"))
        last = "wpt"
    nodes.append(helper.make_node("LayerNormalization", [last, "gamma", "beta"], ["y"],
                                  name="ln", epsilon=1e-12))
    graph = helper.make_graph(nodes, "embedding", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                             [1, SEQ, HIDDEN])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.fixture
def onnx_file(tmp_path):
    import onnx

    def save(**kw):
        path = tmp_path / "emb.onnx"
        onnx.save(embedding_model(**kw), str(path))
        return path
    return save


def test_gather_of_token_ids_imports_as_an_embedding_lookup():
    g = import_onnx(embedding_model())
    assert g.type_of("input_ids").dtype == "int64"
    assert [n.op for n in g.nodes] == ["embedding", "add", "nn.layer_norm"]  # the position
    # Gather of constant ids folded to a constant


@pytest.mark.parametrize("token_types", [False, True])
def test_embedding_file_runs_verified_against_onnxruntime_on_it(onnx_file, token_types):
    path = onnx_file(token_types=token_types)
    c = flow.compile(path, "npu-edge", evaluate=None)
    lookups = [e for e in c.artifact.inputs if e.pre]
    assert [(e.model_name, e.pre) for e in lookups] == \
        [("input_ids", (("gather", ("word", 0)),))] + \
        [("token_type_ids", (("gather", ("types", 0)),))] * token_types
    assert [layer["kind"] for layer in c.artifact.layers] == ["eltwise"] * (1 + token_types) + \
        ["layernorm"]
    r = flow.simulate(c, seed=3)
    assert r.feeds["input_ids"].dtype == np.int64
    assert r.feeds["input_ids"].min() >= 0 and r.feeds["input_ids"].max() < VOCAB
    v = flow.verify(c, r)
    assert v.bit_exact is True and v.reference == "onnxruntime on emb.onnx"
    assert v.snr_db > 30, v


def test_host_gathers_the_quantized_rows_the_npu_reads(onnx_file):
    c = flow.compile(onnx_file(), "npu-edge", evaluate=None)
    m = c.module
    (b,) = m.inputs
    table = m.float_graph.constants["word"]
    assert b.scale == pytest.approx(np.abs(table).max() / 127)  # every row fits, seen or not
    ids = np.array([[0, 99, -1, 5] * 4], np.int64)
    dev = m.quantize_inputs({"input_ids": ids})[b.qname]
    want = np.clip(np.rint(table[ids] / b.scale), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(dev, want)
    r = flow.simulate(c, {"input_ids": ids})
    assert flow.verify(c, r).bit_exact is True
    with pytest.raises(CompilerError, match=r"index 100 is outside the table's 100 rows"):
        m.quantize_inputs({"input_ids": ids + 100})
    with pytest.raises(CompilerError, match="token ids are integers"):
        m.quantize_inputs({"input_ids": ids.astype(np.float32)})


def test_the_json_and_the_report_say_the_lookup_ran_on_the_host(onnx_file, capsys):
    from npusim.cli.main import main
    path = onnx_file()
    code = main(["run", str(path), "--json"])
    s = json.loads(capsys.readouterr()[0])
    assert code == 0 and s["bit_exact"] is True
    assert s["host"] == [{"side": "input", "model": "input_ids", "tensor": "w",
                          "steps": ["gather word"]}]
    assert [layer["name"] for layer in s["layers"]] == ["add_pos", "ln"]
    assert main(["run", str(path)]) == 0
    assert "on the host before the NPU: input_ids -> gather word" in capsys.readouterr()[0]


def test_fp16_target_gathers_fp16_rows(onnx_file):
    c = flow.compile(onnx_file(), "npu-edge -dtype=fp16", evaluate=None)
    (e,) = c.artifact.inputs
    assert e.model_name == "input_ids" and e.pre == (("gather", ("word", 0)),)
    v = flow.verify(c, flow.simulate(c))
    assert v.verified is True and v.snr_db > 50, v


def test_run_time_indices_of_an_activation_are_refused():
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["y"], name="g", axis=1)], "bad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 8])])
    with pytest.raises(FrontendError, match="select rows of an activation"):
        import_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))


def test_token_ids_read_by_anything_but_a_lookup_are_refused():
    from compiler.build import build_quantized
    from compiler.frontend.builder import GraphBuilder
    b = GraphBuilder("mixed")
    ids = b.input("ids", (1, 8), "int64")
    e = b.op("embedding", [b.const(np.ones((10, 8), np.float32), "table"), ids], name="e")
    r = b.op("reshape", [ids], name="r", shape=(8,))
    with pytest.raises(QuantizationError, match=r"model input 'ids' .* is read by node 'r' "
                       r"\(reshape\); an integer input runs only as the token ids"):
        build_quantized(b.build([e, r]), num_calib=1)
