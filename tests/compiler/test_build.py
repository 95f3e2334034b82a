"""build_quantized and QuantizedModule: the hand-off API the codegen engineer relies on."""

import numpy as np
import pytest

from compiler import CompilerError, QuantizedModule, build_float, build_quantized, zoo
from compiler.reference import run_float
from compiler import qscheme as qs
from compiler.frontend import export_onnx


def test_handoff_contents(resnet18_q):
    m = resnet18_q
    assert isinstance(m, QuantizedModule)
    (inp,) = m.inputs
    assert (inp.name, inp.qname, inp.perm) == ("input", "input.nhwc", (0, 2, 3, 1))
    (out,) = m.outputs
    assert (out.name, out.qname, out.post) == ("fc", "fc", ())
    layers = {L.name: L for L in m.layers()}
    res = layers["layer2.0.down.conv"]                 # shortcut conv carrying the residual
    assert res.op == "qnn.conv2d" and res.inputs == ("layer1.1.out", "layer2.0.2.bn")
    assert res.params["weight"].shape == (1, 1, 64, 128)            # HWIO
    assert res.attrs["strides"] == (2, 2) and res.attrs["post_act"] == "relu"
    assert res.attrs["lhs_mult"] > 0 and res.attrs["rhs_mult"] > 0 and res.zero_point == 0
    fc = m.layer("fc")                                  # by output name (node: fc.matmul)
    assert fc.params["weight"].shape == (512, 1000) and fc.params["bias"].dtype == np.int32
    plan = m.memory_plan
    for L in m.layers():
        assert plan.offset(L.output) >= 0
        for name in L.param_names.values():
            assert plan.offset(name) == plan.constants[name][0]
    assert "QuantizedModule 'resnet18': 24 nodes" in m.summary()


def test_run_is_quantize_then_integer_reference_then_dequantize(resnet18_q, feed):
    x = feed(resnet18_q.float_graph, 3)
    q_in = resnet18_q.quantize_inputs(x)
    assert q_in["input.nhwc"].shape == (1, 32, 32, 3) and q_in["input.nhwc"].dtype == np.int8
    np.testing.assert_array_equal(
        q_in["input.nhwc"],
        qs.quantize(x["input"].transpose(0, 2, 3, 1), resnet18_q.inputs[0].scale))
    q_out = resnet18_q.run_int(q_in)
    want = q_out["fc"].astype(np.float64) * resnet18_q.outputs[0].scale
    np.testing.assert_allclose(resnet18_q.run(x)["fc"], want, rtol=1e-6)


def test_build_from_onnx_file_and_graph_agree(tmp_path, feed):
    g = zoo.get("small_cnn")
    path = tmp_path / "small.onnx"
    export_onnx(g, path)
    a, b = build_quantized(str(path), num_calib=2), build_quantized(g, num_calib=2)
    x = b.quantize_inputs(feed(g))
    assert np.array_equal(a.run_int(x)["fc2"], b.run_int(x)["fc2"])


def test_build_errors():
    with pytest.raises(CompilerError, match="unknown model 'resnet19'; did you mean"):
        build_quantized("resnet19")
    with pytest.raises(CompilerError, match="computes fp16; int8 quantization is for"):
        build_quantized("mlp", target="npu -dtype=fp16")
    with pytest.raises(CompilerError, match="does not quantize; include 'quantize'"):
        build_quantized("mlp", pipeline="simplify, fuse")
    with pytest.raises(CompilerError, match="cannot build from int"):
        build_quantized(3)
    assert build_quantized("mlp", num_calib=1, target="npu-tiny").target.tag == "npu-tiny"


def test_build_float_is_the_fused_nhwc_float_graph(feed):
    g0 = zoo.get("small_cnn")
    g = build_float(g0)
    assert g.ops() == {"layout_transform": 1, "fused.conv2d": 2, "nn.max_pool2d": 2,
                       "flatten": 1, "fused.dense": 2}
    assert g.meta["memory_plan"].offset("pool1") >= 0
    x = feed(g0)
    np.testing.assert_allclose(run_float(g, x)["fc2"], run_float(g0, x)["fc2"], rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("model", ["mlp", "small_cnn", "resnet18", "mobilenetv2"])
def test_input_shapes_are_the_float_models(model):
    """QuantizedModule.input_shapes reads the float inputs' shapes from the int8 graph, in the
    float model's input order (random feeds are drawn in that order)."""
    from compiler.build import build_quantized
    kwargs = {} if model in ("mlp", "small_cnn") else {"resolution": 32}
    q = build_quantized(model, **kwargs)
    g = q.float_graph
    assert list(q.input_shapes().items()) == [(v, g.type_of(v).shape) for v in g.inputs]
