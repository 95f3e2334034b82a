"""quantize: integer parameters follow the scheme's formulas; unsupported graphs are explained."""

import numpy as np
import pytest

from compiler import build_quantized, qscheme as qs, zoo
from compiler.errors import QuantizationError
from compiler.frontend import GraphBuilder
from compiler.passes import PassContext, PassManager


@pytest.fixture(scope="module")
def small_q():
    return build_quantized("small_cnn", num_calib=4)


def test_quantized_graph_is_int8_nhwc_with_int32_params(small_q):
    g = small_q.graph
    assert g.ops() == {"qnn.conv2d": 2, "qnn.max_pool2d": 2, "flatten": 1, "qnn.dense": 2}
    assert all(g.type_of(v).dtype == "int8" for v in g.values() if v not in g.constants)
    assert g.inputs == ["input.nhwc"] and g.type_of("input.nhwc").shape == (1, 32, 32, 3)
    conv = small_q.layer("conv1")
    assert conv.params["weight"].shape == (3, 3, 3, 16) and conv.params["weight"].dtype == np.int8
    assert np.abs(conv.params["weight"]).max() == 127   # every channel uses the full range
    for role in ("bias", "mult", "shift"):
        assert conv.params[role].dtype == np.int32 and conv.params[role].shape == (16,)
    assert np.all(conv.params["mult"] >= 2**30) and conv.attrs["act"] == "relu"


def test_parameters_follow_the_formulas(small_q):
    f = PassManager.from_string("simplify, fold-bn, convert-layout, fuse").run(
        small_q.float_graph)
    fn = f.node("conv2")
    w, b = (f.constants[v].astype(np.float64) for v in fn.inputs[1:3])
    q = small_q.layer("conv2")
    s_in, s_out = q.in_scales[0], q.out_scale
    absmax = small_q.graph.meta["calibration"]["absmax"]
    assert s_out == pytest.approx(absmax["relu2"] / 127)
    s_w = np.abs(w).max(axis=(0, 1, 2)) / 127
    assert np.array_equal(q.params["weight"], np.rint(w / s_w).astype(np.int8))
    assert np.array_equal(q.params["bias"], np.rint(b / (s_in * s_w)).astype(np.int32))
    m = q.params["mult"] * 2.0 ** -q.params["shift"].astype(np.float64)
    np.testing.assert_allclose(m, s_in * s_w / s_out, rtol=2**-30)


def test_scale_preserving_ops_share_scales(small_q):
    s = small_q.scales
    assert s["pool1"] == s["relu1"] and s["flatten"] == s["pool2"]


def test_mlp_sigmoid_lut_and_host_softmax(feed):
    m = build_quantized("mlp", activation="sigmoid", softmax=True, num_calib=4)
    assert m.graph.ops() == {"qnn.dense": 3, "qnn.lut": 2}
    out = m.outputs[0]
    assert (out.name, out.qname, out.post) == ("probs", "logits", (("softmax", -1),))
    lut = m.layer("act1")
    assert lut.out_scale == pytest.approx(1 / 127)
    assert np.array_equal(lut.params["table"], qs.sigmoid_table(lut.in_scales[0], 1 / 127))
    r = m.compare(feed(m.float_graph))["probs"]
    assert r["snr_db"] > 25 and r["top1"] == 1.0


def test_standalone_add_multiply_concat_relu_clip(rng, feed):
    b = GraphBuilder("mix")
    x = b.input("x", (1, 3, 8, 8))
    c1 = b.conv2d(x, rng.standard_normal((4, 3, 3, 3)), pad=1, name="c1")
    c2 = b.conv2d(x, rng.standard_normal((4, 3, 1, 1)) * 3, name="c2")
    s = b.add(b.relu(c1), b.clip(c2, -1.0, 2.0), name="sum")
    y = b.concat([s, b.multiply(c1, c2, name="prod")], axis=1, name="cat")
    y = b.avg_pool2d(y, 2, name="avg")
    g = b.build(y)
    m = build_quantized(g, [feed(g, seed=i) for i in range(6)])
    assert m.graph.ops() == {"qnn.conv2d": 2, "qnn.relu": 1, "qnn.clip": 1, "qnn.add": 1,
                             "qnn.multiply": 1, "qnn.concat": 1, "qnn.avg_pool2d": 1}
    cat = m.layer("cat")
    assert m.scales["cat"] == max(m.scales["sum"], m.scales["prod"])
    assert 2**30 in cat.attrs["mults"]                      # the larger scale passes exactly
    assert m.compare(feed(g, seed=99))["avg"]["snr_db"] > 25


@pytest.mark.parametrize("pipeline,msg", [
    ("fold-bn, convert-layout, fuse, quantize", "no calibration; run 'calibrate'"),
    ("fold-bn, convert-layout, calibrate, quantize", r"is not fused; run 'fuse'"),
    ("fold-bn, calibrate, fuse, quantize", "is NCHW; run 'convert-layout'"),
])
def test_pipeline_order_errors(pipeline, msg):
    with pytest.raises(QuantizationError, match=msg):
        PassManager.from_string(pipeline).run(zoo.get("small_cnn"), PassContext(num_calib=1))


def test_calibrating_after_fusion_misses_the_pre_add_value(rng):
    b = GraphBuilder("res")
    x = b.input("x", (1, 4))
    y = b.add(b.dense(x, rng.standard_normal((4, 4)), name="fc"), x, name="y")
    with pytest.raises(QuantizationError, match="value 'fc' has no calibration statistics; "
                                                "run 'calibrate' after 'convert-layout' and "
                                                "before 'fuse'"):
        build_quantized(b.build(y), num_calib=1,
                        pipeline="convert-layout, fuse, calibrate, quantize")


def test_unquantizable_ops_are_explained():
    b = GraphBuilder("bad")
    x = b.input("x", (1, 2, 6, 6))
    y = b.avg_pool2d(x, 3, stride=1, pad=1, name="avg")
    with pytest.raises(QuantizationError, match="count_include_pad=0.*one divisor per channel"):
        build_quantized(b.build(y), num_calib=1)
    b = GraphBuilder("bad")
    x = b.input("x", (1, 4))
    gate = b.dense(x, np.ones((4, 1), np.float32), name="gate")
    y = b.dense(b.multiply(x, gate, name="mul"), np.ones((4, 2)), name="fc")
    with pytest.raises(QuantizationError, match="'mul' \\(multiply\\) broadcasts .* the NPU "
                                                "needs equal shapes"):
        build_quantized(b.build(y), num_calib=1)


def test_a_softmax_inside_the_graph_runs_on_the_npu():
    """(It used to be refused: 'softmax runs on the host only as a graph's last op'.)"""
    b = GraphBuilder("mid")
    x = b.input("x", (1, 4))
    y = b.dense(b.softmax(x, name="sm"), np.ones((4, 2)), name="fc")
    q = build_quantized(b.build(y), num_calib=1)
    assert [n.op for n in q.graph.nodes] == ["qnn.softmax", "qnn.dense"]
