"""The importer's classic/mobile CNN ops and exporter plumbing, each against onnxruntime on
small cases (float graphs), its refusals, and docs/onnx.md being current."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from compiler.errors import FrontendError  # noqa: E402
from compiler.frontend import import_onnx  # noqa: E402
from compiler.reference import run_float  # noqa: E402

F, I64 = np.float32, np.int64
R = np.random.default_rng(5)


def model(nodes, x_shape, inits=(), opset=13, outputs=("y",), value_info=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))
    ys = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs]
    g = helper.make_graph(nodes, "t", [x], ys,
                          [numpy_helper.from_array(np.asarray(a), k) for k, a in inits],
                          value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def check(m, shape, rtol=1e-5, atol=1e-5):
    x = R.standard_normal(shape).astype(F)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, {"x": x})
    got = run_float(import_onnx(m), {"x": x})
    for o, w in zip([o.name for o in m.graph.output], want):
        np.testing.assert_allclose(got[o], w, rtol=rtol, atol=atol)


N = helper.make_node
CASES = {
    "sum_variadic_broadcast": ([N("Relu", ["x"], ["r"]), N("GlobalAveragePool", ["x"], ["g"]),
                                N("Sum", ["x", "r", "g"], ["y"])], (1, 3, 4, 4), [], 13),
    "sub_div_neg_constants": ([N("Sub", ["c", "x"], ["a"]), N("Div", ["a", "d"], ["b"]),
                               N("Neg", ["b"], ["y"])], (1, 3, 2, 2),
                              [("c", np.array([1, 2, 3], F).reshape(3, 1, 1)),
                               ("d", np.array(4.0, F))], 13),
    "mul_se_gate_broadcast": ([N("ReduceMean", ["x"], ["s"], axes=[2, 3], keepdims=1),
                               N("HardSigmoid", ["s"], ["h"]), N("Mul", ["x", "h"], ["y"])],
                              (1, 4, 3, 5), [], 13),
    "activations": ([N("HardSwish", ["x"], ["a"]), N("LeakyRelu", ["a"], ["b"], alpha=0.2),
                     N("Elu", ["b"], ["c"]), N("Tanh", ["c"], ["y"])], (2, 6), [], 14),
    "prelu_per_channel": ([N("PRelu", ["x", "s"], ["y"])], (1, 3, 2, 2),
                          [("s", np.array([.1, .2, .3], F).reshape(3, 1, 1))], 9),
    "lrn": ([N("LRN", ["x"], ["y"], size=3, alpha=0.5, beta=0.75, bias=2.0)], (1, 5, 3, 3),
            [], 13),
    "maxpool_ceil_mode": ([N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                             ceil_mode=1)], (1, 2, 8, 8), [], 10),
    "avgpool_ceil_mode_exclude_pad": ([N("AveragePool", ["x"], ["y"], kernel_shape=[2, 2],
                                         strides=[2, 2], ceil_mode=1)], (1, 2, 5, 5), [], 13),
    "pad_input_form": ([N("Pad", ["x", "p"], ["y"])], (1, 2, 3, 3),
                       [("p", np.array([0, 0, 1, 2, 0, 0, 2, 0], I64))], 13),
    "pad_attribute_form": ([N("Pad", ["x"], ["y"], pads=[0, 0, 1, 1, 0, 0, 1, 1])],
                           (1, 2, 3, 3), [], 2),
    "split_squeeze_unsqueeze_opset13": (
        [N("Split", ["x", "sp"], ["a", "b"], axis=1), N("Squeeze", ["b", "ax"], ["s"]),
         N("Unsqueeze", ["s", "ax"], ["u"]), N("Concat", ["u", "a"], ["y"], axis=1)],
        (1, 5, 3), [("sp", np.array([2, 3], I64)), ("ax", np.array([0], I64))], 13),
    "split_squeeze_unsqueeze_opset11": (
        [N("Split", ["x"], ["a", "b"], axis=1, split=[4, 1]), N("Squeeze", ["b"], ["s"],
                                                                 axes=[1]),
         N("Unsqueeze", ["s"], ["y"], axes=[2])], (2, 5, 3), [], 11),
    "slice_two_axes": ([N("Slice", ["x", "st", "en", "ax"], ["y"])], (2, 6, 5),
                       [("st", np.array([1, -3], I64)), ("en", np.array([5, 100], I64)),
                        ("ax", np.array([1, 2], I64))], 13),
    "resize_nearest_half_pixel": ([N("Resize", ["x", "", "sc"], ["y"], mode="nearest")],
                                  (1, 2, 3, 4), [("sc", np.array([1, 1, 2, 3], F))], 13),
    "resize_bilinear_pytorch": ([N("Resize", ["x", "", "sc"], ["y"], mode="linear",
                                   coordinate_transformation_mode="pytorch_half_pixel")],
                                (1, 2, 3, 5), [("sc", np.array([1, 1, 2, 2], F))], 13),
    "resize_bilinear_half_pixel": ([N("Resize", ["x", "", "sc"], ["y"], mode="linear")],
                                   (1, 2, 4, 4), [("sc", np.array([1, 1, 2, 2], F))], 13),
    "conv_transpose_k2_s2": ([N("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 2])],
                             (1, 3, 3, 4), [("w", R.standard_normal((3, 5, 2, 2)).astype(F)),
                                            ("b", R.standard_normal(5).astype(F))], 13),
    "conv_transpose_k4_s2_p1": ([N("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2],
                                   pads=[1, 1, 1, 1])],
                                (1, 2, 4, 3), [("w", R.standard_normal((2, 3, 4, 4)).astype(F))],
                                11),
    "conv_transpose_k3_s2_p1_op1_groups": (
        [N("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1],
           output_padding=[1, 1], group=2)],
        (1, 4, 3, 3), [("w", R.standard_normal((4, 3, 3, 3)).astype(F))], 13),
    "conv_transpose_k3_s3_p1_crops": ([N("ConvTranspose", ["x", "w"], ["y"], strides=[3, 2],
                                         pads=[1, 1, 1, 1])], (1, 2, 3, 4),
                                      [("w", R.standard_normal((2, 3, 3, 3)).astype(F))], 13),
    "conv_transpose_k3_s1_p1": ([N("ConvTranspose", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
                                (1, 2, 4, 4), [("w", R.standard_normal((2, 2, 3, 3)).astype(F))],
                                13),
    "depth_to_space_dcr_crd": ([N("DepthToSpace", ["x"], ["a"], blocksize=2),
                                N("DepthToSpace", ["x"], ["b"], blocksize=2, mode="CRD"),
                                N("Add", ["a", "b"], ["y"])], (1, 8, 2, 3), [], 13),
    "upsample_opset9": ([N("Upsample", ["x", "sc"], ["y"], mode="nearest")], (1, 2, 3, 3),
                        [("sc", np.array([1, 1, 2, 2], F))], 9),
    "resize_sizes_opset11": ([N("Resize", ["x", "roi", "sc", "sz"], ["y"], mode="nearest",
                                coordinate_transformation_mode="asymmetric",
                                nearest_mode="floor")], (1, 2, 3, 3),
                             [("roi", np.zeros(0, F)), ("sc", np.zeros(0, F)),
                              ("sz", np.array([1, 2, 6, 9], I64))], 11),
    "shape_subgraph_reshape": (
        [N("Shape", ["x"], ["s"]), N("Gather", ["s", "i0"], ["n"], axis=0),
         N("Unsqueeze", ["n", "ax"], ["nu"]), N("Concat", ["nu", "m1"], ["t"], axis=0),
         N("ConstantOfShape", ["nu"], ["ones"], value=numpy_helper.from_array(
             np.array([1.0], F))),
         N("Cast", ["ones"], ["onesi"], to=TensorProto.INT64),
         N("Range", ["z", "onesi2", "one"], ["rg"]),
         N("Reshape", ["x", "t"], ["y"])], (2, 3, 2, 2),
        [("i0", np.array(0, I64)), ("ax", np.array([0], I64)), ("m1", np.array([-1], I64)),
         ("z", np.array(0, I64)), ("onesi2", np.array(3, I64)), ("one", np.array(1, I64))],
        13),
    "constant_forms": ([N("Constant", [], ["a"], value_float=2.0),
                        N("Constant", [], ["b"], value_floats=[1.0, 2.0, 3.0]),
                        N("Mul", ["x", "a"], ["m"]), N("Add", ["m", "b"], ["y"])],
                       (2, 3), [], 13),
    "reducemean_opset18_axes_input": ([N("ReduceMean", ["x", "ax"], ["y"], keepdims=0)],
                                      (1, 3, 4, 4), [("ax", np.array([2, 3], I64))], 18),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_op_matches_onnxruntime(case):
    nodes, shape, inits, opset = CASES[case]
    check(model(nodes, shape, inits, opset), shape)


def test_dropout_mask_read_is_refused_unread_is_fine():
    nodes = [N("Dropout", ["x"], ["y", "mask"])]
    import_onnx(model(nodes, (1, 4)))
    with pytest.raises(FrontendError, match=r"only the first output is supported; the model "
                                            r"reads \['mask'\] too"):
        import_onnx(model(nodes, (1, 4), outputs=("y", "mask")))


def test_initializers_listed_as_graph_inputs_are_constants():
    m = model([N("Conv", ["x", "w"], ["y"])], (1, 2, 3, 3), [("w", R.standard_normal(
        (4, 2, 1, 1)).astype(F))], 9)
    m.graph.input.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [4, 2, 1, 1]))
    g = import_onnx(m)
    assert g.inputs == ["x"] and "w" in g.constants
    check(m, (1, 2, 3, 3))


def test_value_info_that_disagrees_is_an_error_naming_both():
    vi = helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 5])
    m = model([N("Relu", ["x"], ["r"]), N("Relu", ["r"], ["y"])], (1, 4), value_info=[vi])
    with pytest.raises(FrontendError, match=r"ONNX value 'r' is declared \(value_info\) with "
                                            r"shape \[1, 5\], but the importer computes "
                                            r"\[1, 4\]"):
        import_onnx(m)


def test_gather_of_an_activation_by_a_constant_run_is_a_slice():
    m = model([N("Gather", ["x", "i"], ["y"], axis=1)], (2, 4),
              [("i", np.array([1, 2], I64))])
    g = import_onnx(m)
    assert [n.op for n in g.nodes] == ["slice", "reshape"]
    x = np.arange(8, dtype=F).reshape(2, 4)
    np.testing.assert_array_equal(list(run_float(g, {"x": x}).values())[0], x[:, 1:3])


def test_gather_by_computed_or_scattered_indices_says_why():
    m = model([N("Gather", ["x", "i"], ["y"], axis=1)], (2, 4),
              [("i", np.array([0, 2], I64))])
    with pytest.raises(FrontendError, match=r"Gather, opset 13\): indices \[0, 2\] are not "
                                            r"one contiguous run"):
        import_onnx(m)


@pytest.mark.parametrize("nodes, inits, opset, message", [
    ([N("Pad", ["x", "p"], ["y"], mode="wrap")], [("p", np.ones(8, I64))], 19,
     "Pad mode 'wrap': constant, reflect and edge"),
    ([N("Resize", ["x", "", "sc"], ["y"], mode="linear",
        coordinate_transformation_mode="tf_crop_and_resize")],
     [("sc", np.array([1, 1, 3, 3], F))], 13, "'tf_crop_and_resize' .a region of interest."),
    ([N("Resize", ["x", "", "sc"], ["y"], mode="nearest",
        coordinate_transformation_mode="align_corners")],
     [("sc", np.array([1, 1, 3, 3], F))], 13, "'align_corners' with nearest_mode"),
    ([N("ReduceMean", ["x"], ["y"], axes=[1])], [], 13, "only the spatial axes"),
])
def test_unsupported_forms_are_explained(nodes, inits, opset, message):
    with pytest.raises(FrontendError, match=message):
        import_onnx(model(nodes, (1, 2, 4, 4), inits, opset))


def test_docs_onnx_md_is_current():
    from compiler.frontend import onnx_docs
    assert onnx_docs.DOC.read_text() == onnx_docs.render(), \
        "docs/onnx.md is stale: run python -m compiler.frontend.onnx_docs"


def test_constant_arithmetic_after_a_pool_runs_on_the_npu(tmp_path):
    """Add/Mul/Sub of per-channel constants with no conv before them become depthwise 1x1
    convs (fold-bn's 'affine' ops): quantized, simulated and bit-exact."""
    from npusim import flow
    c = np.array([1, -2, 3], F).reshape(1, 3, 1, 1)
    m = model([N("MaxPool", ["x"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
               N("Add", ["p", "c"], ["a"]), N("Mul", ["a", "c"], ["b"]),
               N("Sub", ["b", "c"], ["y"])], (1, 3, 8, 8), [("c", c)], 13)
    m.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                             [1, 3, 4, 4]))
    path = tmp_path / "affine.onnx"
    onnx.save(m, str(path))
    compiled = flow.compile(str(path), "npu-edge")
    assert [n.op for n in compiled.module.graph.nodes].count("qnn.conv2d") == 1  # all three
    v = flow.verify(compiled, flow.simulate(compiled))
    assert v.bit_exact and v.snr_db > 30, v


@pytest.mark.parametrize("axis", [1, -1])
def test_a_softmax_of_the_input_itself_runs_on_the_npu(tmp_path, axis):
    """A graph's last softmax runs on the host, unless it reads a graph input: the NPU would
    then compute nothing (its output tensor was the input's, refused as a name clash)."""
    from npusim import flow
    x = helper.make_tensor_value_info("0", TensorProto.FLOAT, [3, 4, 5])
    y = helper.make_tensor_value_info("1", TensorProto.FLOAT, [3, 4, 5])
    m = helper.make_model(helper.make_graph([N("Softmax", ["0"], ["1"], axis=axis)], "s", [x],
                                            [y]), opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    path = tmp_path / "softmax.onnx"
    onnx.save(m, str(path))
    compiled = flow.compile(str(path), "npu-edge")
    assert not any(e.post for e in compiled.artifact.outputs)
    v = flow.verify(compiled, flow.simulate(compiled))
    assert v.bit_exact and v.reference == "onnxruntime on softmax.onnx" and v.snr_db > 30, v


@pytest.mark.parametrize("node", [
    N("LRN", ["x"], ["y"], size=3),
    N("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),  # count table
])
def test_int8_table_ops_on_fp16_say_to_use_int8(node):
    """They said "op 'power' has no NPU lowering; known: ..." (Inception's LRN and pools on
    an fp16 Target)."""
    from compiler.backends import build
    from compiler.errors import CompilerError
    m = model([node], (1, 4, 8, 8))
    with pytest.raises(CompilerError, match=r"runs on the NPU as an int8 table \(vlut\), and "
                                            r"fp16 Targets have no table instruction.*-dtype=int8"):
        build(m, "npu-edge -dtype=fp16")
