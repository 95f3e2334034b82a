"""ONNX importer (every supported op vs onnxruntime), its errors, and export/import round trips."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from compiler import zoo  # noqa: E402
from compiler.errors import FrontendError  # noqa: E402
from compiler.frontend import export_onnx, import_onnx  # noqa: E402
from compiler.reference import run_float  # noqa: E402


def model(nodes, x_shape, out_shape=None, inits=(), opset=17, x_dims=None):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, x_dims or list(x_shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)
    g = helper.make_graph(nodes, "t", [x], [y],
                          [numpy_helper.from_array(np.asarray(a), k) for k, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def ort_run(m, x):
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


R = np.random.default_rng(3)
W = R.standard_normal((6, 2, 3, 3)).astype(np.float32)
B6 = R.standard_normal(6).astype(np.float32)
F = np.float32


CASES = {
    "conv_groups_bias_same_upper": ([helper.make_node(
        "Conv", ["x", "w", "b"], ["y"], group=2, strides=[2, 2], auto_pad="SAME_UPPER")],
        (1, 4, 7, 7), [("w", W), ("b", B6)], 17),
    "conv_dilated_pads": ([helper.make_node(
        "Conv", ["x", "w"], ["y"], pads=[1, 0, 2, 1], dilations=[2, 1])],
        (1, 2, 9, 8), [("w", W)], 11),
    "gemm_transB_alpha_beta": ([helper.make_node(
        "Gemm", ["x", "w", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)],
        (3, 5), [("w", R.standard_normal((4, 5)).astype(F)), ("c", np.ones((1, 4), F))], 13),
    "matmul_relu": ([helper.make_node("MatMul", ["x", "w"], ["h"]),
                     helper.make_node("Relu", ["h"], ["y"])],
                    (2, 5), [("w", R.standard_normal((5, 3)).astype(F))], 13),
    "clip_opset11_inputs": ([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], (2, 6),
                            [("lo", np.array(-0.5, F)), ("hi", np.array(0.7, F))], 13),
    "clip_opset6_attrs": ([helper.make_node("Clip", ["x"], ["y"], min=0.0, max=6.0)],
                          (2, 6), [], 6),
    "add_channel_bias_and_mul": ([helper.make_node("Add", ["x", "c"], ["h"]),
                                  helper.make_node("Mul", ["h", "h"], ["y"])],
                                 (1, 3, 2, 2), [("c", np.arange(3, dtype=F).reshape(3, 1, 1))],
                                 13),
    "maxpool_avgpool": ([helper.make_node("MaxPool", ["x"], ["h"], kernel_shape=[3, 3],
                                          strides=[2, 2], pads=[1, 1, 1, 1]),
                         helper.make_node("AveragePool", ["h"], ["y"], kernel_shape=[2, 2],
                                          pads=[0, 0, 1, 1])],
                        (1, 2, 9, 9), [], 13),
    "avgpool_count_pad": ([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                                            pads=[1, 1, 1, 1], count_include_pad=1)],
                          (1, 2, 5, 5), [], 13),
    "gap_flatten": ([helper.make_node("GlobalAveragePool", ["x"], ["h"]),
                     helper.make_node("Flatten", ["h"], ["y"])], (2, 3, 4, 4), [], 13),
    "batchnorm": ([helper.make_node("BatchNormalization", ["x", "g", "b", "m", "v"], ["y"],
                                    epsilon=1e-3)], (1, 3, 2, 2),
                  [("g", np.array([1, 2, 3], F)), ("b", np.array([0, 1, 0], F)),
                   ("m", np.array([.5, 0, 1], F)), ("v", np.array([1, 4, 9], F))], 15),
    "reshape_zero_minus1_concat": ([
        helper.make_node("Reshape", ["x", "s"], ["h"]),
        helper.make_node("Concat", ["h", "h"], ["y"], axis=1)],
        (2, 3, 4), [("s", np.array([0, -1], np.int64))], 14),
    "softmax_sigmoid": ([helper.make_node("Sigmoid", ["x"], ["h"]),
                         helper.make_node("Softmax", ["h"], ["y"])], (2, 7), [], 13),
    "identity_dropout_constant": ([
        helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(
            np.full((1, 4), 2.0, F))),
        helper.make_node("Identity", ["x"], ["h"]),
        helper.make_node("Dropout", ["h"], ["d"]),
        helper.make_node("Mul", ["d", "k"], ["y"])], (1, 4), [], 13),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_import_matches_onnxruntime(case):
    nodes, shape, inits, opset = CASES[case]
    m = model(nodes, shape, None, inits, opset)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    g = import_onnx(m)
    got = run_float(g, {"x": x})["y"]
    np.testing.assert_allclose(got, ort_run(m, x), rtol=1e-5, atol=1e-5)


def test_import_canonicalizes_conv_bias_and_channel_add():
    nodes, shape, inits, opset = CASES["add_channel_bias_and_mul"]
    g = import_onnx(model(nodes, shape, None, inits, opset))
    assert g.ops() == {"nn.bias_add": 1, "multiply": 1}
    nodes, shape, inits, opset = CASES["conv_groups_bias_same_upper"]
    g = import_onnx(model(nodes, shape, None, inits, opset))
    conv = g.nodes[0]
    assert g.ops() == {"nn.conv2d": 1, "nn.bias_add": 1}
    # SAME_UPPER, 7 -> 4 with stride 2, kernel 3: total pad 2, split 1/1
    assert conv.attrs["pads"] == (1, 1, 1, 1) and conv.attrs["groups"] == 2


def test_unsupported_op_names_node_op_opset_and_supported_list():
    m = model([helper.make_node("Round", ["x"], ["y"], name="act7")], (1, 4))
    with pytest.raises(FrontendError) as e:
        import_onnx(m)
    msg = str(e.value)
    assert "ONNX node 'act7' (#0): op 'Round' (opset 17) is not supported; it would not run " \
           "on the host either" in msg
    from compiler.frontend.onnx_import import supported_ops
    assert msg.endswith("supported: " + ", ".join(supported_ops()))
    assert {"Sum", "LRN", "Pad", "Split", "Resize", "ConvTranspose", "HardSwish", "PRelu",
            "Squeeze", "Unsqueeze", "ReduceMean", "Conv", "Gemm"} <= set(supported_ops())



def test_an_op_of_another_domain_names_its_domain_and_that_domains_opset():
    """onnxruntime's own logreg_iris.onnx imports only ai.onnx.ml: the message said 'opset 0'
    (the default domain's, absent) and nothing of the host."""
    m = model([helper.make_node("Normalizer", ["x"], ["y"], name="norm", domain="ai.onnx.ml")],
              (1, 4))
    m.opset_import.append(helper.make_opsetid("ai.onnx.ml", 3))
    with pytest.raises(FrontendError, match=r"^ONNX node 'norm' \(#0\): op 'Normalizer' of "
                       r"domain 'ai.onnx.ml' \(opset 3\) is not supported; it would not run on "
                       r"the host either .*; supported: the default domain's Add, "):
        import_onnx(m)

@pytest.mark.parametrize("content,needle", [
    (b"not a model", r"not a valid ONNX protobuf \(Error parsing message"),
    (b"", "it has no graph outputs"),
    (None, "No such file or directory"),
])
def test_unreadable_files_are_frontend_errors_naming_the_file(tmp_path, content, needle):
    path = tmp_path / "bad.onnx"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(FrontendError, match=rf"cannot read ONNX model '{path}': {needle}"):
        import_onnx(str(path))
    with pytest.raises(FrontendError, match="cannot read ONNX model"):  # and via build()
        from compiler.backends import build
        build(str(path), "npu-tiny")


def test_unreadable_bytes_are_a_frontend_error():
    with pytest.raises(FrontendError, match="cannot read ONNX bytes: not a valid ONNX"):
        import_onnx(b"\x00garbage")


def test_dynamic_batch_needs_input_shapes():
    m = model([helper.make_node("Relu", ["x"], ["y"])], None, x_dims=["N", 4])
    with pytest.raises(FrontendError) as e:  # the hint names the CLI flag and the argument
        import_onnx(m)
    assert str(e.value) == (
        "ONNX input 'x' has dynamic shape ['?', 4]; give its shape with --input-shape x=Nx4, "
        "each symbolic dimension a number (npusim run/compile), or input_shapes={'x': (1, ...)}"
        " (Python)")
    g = import_onnx(m, input_shapes={"x": (3, 4)})
    assert g.type_of("x").shape == (3, 4)


@pytest.mark.parametrize("shapes,message", [
    ({"x": (3, 5)}, "input shape [3, 5] for ONNX input 'x' contradicts its declared shape "
                    "['?', 4]: give 2 dimensions that keep the fixed ones"),
    ({"x": (1, 3, 4)}, "input shape [1, 3, 4] for ONNX input 'x' contradicts its declared "
                       "shape ['?', 4]: give 2 dimensions that keep the fixed ones"),
    ({"x": (0, 4)}, "input shape (0, 4) for ONNX input 'x' must be positive integers, e.g. "
                    "(1, 4)"),
    ({"x": (1.5, 4)}, "input shape (1.5, 4) for ONNX input 'x' must be positive integers, e.g. "
                      "(1, 4)"),
    ({"x": (2, 4), "q": (1,)}, "an input shape is given for 'q', not an input of the ONNX "
                               "model (its inputs: x)"),
])
def test_input_shapes_that_do_not_fit_the_input_are_refused(shapes, message):
    m = model([helper.make_node("Relu", ["x"], ["y"])], None, x_dims=["N", 4])
    with pytest.raises(FrontendError) as e:
        import_onnx(m, input_shapes=shapes)
    assert str(e.value) == message


def test_unsupported_attribute_values_are_explained():
    m = model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2],
                                dilations=[2, 2])], (1, 1, 5, 5))
    # (dilated pooling is rewritten where the map splits into whole phases; 5 by 2 does not)
    with pytest.raises(FrontendError, match=r"MaxPool, opset 17.*dilated max pooling of a 5x5 "
                                            r"map .* must be multiples of the dilation"):
        import_onnx(m)
    m = model([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], ceil_mode=1,
                                strides=[2, 2], count_include_pad=1)], (1, 1, 5, 5))
    with pytest.raises(FrontendError, match="ceil_mode=1 adds a partial window"):
        import_onnx(m)


@pytest.mark.parametrize("name,kw", [("small_cnn", {}), ("mobilenetv2", {"resolution": 32}),
                                     ("mlp", {"softmax": True})])
def test_zoo_round_trip_through_onnx(name, kw, tmp_path, feed):
    g = zoo.get(name, **kw)
    path = tmp_path / f"{name}.onnx"
    export_onnx(g, path)
    onnx.checker.check_model(str(path))
    g2 = import_onnx(path)
    x = feed(g)
    a, b = run_float(g, x), run_float(g2, x)
    for k in g.outputs:
        np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-5 * np.abs(a[k]).max())
    assert len(g2.nodes) == len(g.nodes)


def test_resnet18_round_trip(resnet18_32, feed):
    g2 = import_onnx(export_onnx(resnet18_32))
    x = feed(resnet18_32)
    a, b = run_float(resnet18_32, x)["fc"], run_float(g2, x)["fc"]
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5 * np.abs(a).max())


def test_export_refuses_lowered_graphs(resnet18_q):
    with pytest.raises(FrontendError, match="op 'qnn.conv2d' has no ONNX export"):
        export_onnx(resnet18_q.graph)
