"""A constant concatenated to an activation (ViT's class token prepended to the patch tokens)
lowers on the NPU: the constant part is quantized at the output scale and copied from the
constants region by DMA, the activation part requantized to it; bit-exact at a small size."""

import numpy as np
import pytest

from compiler.frontend.builder import GraphBuilder
from npusim import flow


def cls_model(cls_std: float = 0.5, tokens: int = 6, hidden: int = 16, last: bool = False):
    """x (1, tokens, hidden) -> concat(cls, x) (+ pos) -> dense: the class-token pattern
    (the constant first, or last with last=True)."""
    rng = np.random.default_rng(0)
    b = GraphBuilder("cls")
    x = b.input("x", (1, tokens, hidden))
    cls = b.const((cls_std * rng.standard_normal((1, 1, hidden))).astype(np.float32), "cls")
    y = b.concat([x, cls] if last else [cls, x], axis=1, name="cat")
    y = b.add(y, (0.2 * rng.standard_normal((1, tokens + 1, hidden))).astype(np.float32),
              name="pos")
    w = (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32)
    return b.build(b.dense(y, w, name="proj"))


@pytest.mark.parametrize("kw", [dict(), dict(cls_std=8.0), dict(last=True)],
                         ids=["small-cls", "cls-sets-the-scale", "constant-last"])
def test_class_token_concat_is_bit_exact(kw):
    c = flow.compile(cls_model(**kw), "npu-edge", evaluate=None)
    (cat,) = [layer for layer in c.artifact.layers if layer["kind"] == "concat"]
    part = 1 if kw.get("last") else 0
    assert cat["note"] == f"constant part(s) [{part}] copied from the constants"
    # compulsory traffic: the activation part, the constant row and the output, once each
    assert cat["min_dram_bytes"] == 6 * 16 + 16 + 7 * 16
    q = c.module.layer("cat")
    const = next(v for v in q.param_names.values())
    s_out = q.out_scale
    np.testing.assert_array_equal(  # the constant part is stored at the output scale
        c.module.graph.constants[const],
        np.clip(np.rint(c.module.float_graph.constants["cls"] / s_out), -128, 127))
    if kw.get("cls_std") == 8.0:  # the constant's range sets the output scale
        assert s_out == pytest.approx(np.abs(c.module.float_graph.constants["cls"]).max() / 127)
    r = flow.simulate(c, seed=2)
    v = flow.verify(c, r)
    assert v.bit_exact is True and v.snr_db > 30, v


def test_class_token_concat_runs_on_the_fp16_path():
    c = flow.compile(cls_model(), "npu-edge -dtype=fp16", evaluate=None)
    v = flow.verify(c, flow.simulate(c))
    assert v.verified is True and v.snr_db > 50, v


def test_onnx_concat_of_a_constant_verifies_against_onnxruntime_on_the_file(tmp_path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(1)
    inits = [numpy_helper.from_array((0.5 * rng.standard_normal((1, 1, 8))).astype(np.float32),
                                     "cls"),
             numpy_helper.from_array((rng.standard_normal((8, 8)) / 3).astype(np.float32), "w")]
    graph = helper.make_graph(
        [helper.make_node("Concat", ["cls", "x"], ["t"], name="cat", axis=1),
         helper.make_node("MatMul", ["t", "w"], ["y"], name="proj")], "cls",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5, 8])], inits)
    path = tmp_path / "cls.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    c = flow.compile(path, "npu-edge", evaluate=None)
    v = flow.verify(c, flow.simulate(c))
    assert v.bit_exact is True and v.reference == "onnxruntime on cls.onnx"
    assert v.snr_db > 30, v
