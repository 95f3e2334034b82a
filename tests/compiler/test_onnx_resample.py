"""Pad modes (a constant value, reflect, edge), linear and cubic Resize in every coordinate mode,
and dilated MaxPool (compiler/frontend/onnx_resample.py): each imported graph against
onnxruntime on an ONNX file built here, and compiled, simulated and verified on npu-edge."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from compiler.frontend import import_onnx  # noqa: E402
from compiler.frontend.onnx_resample import resize_matrix  # noqa: E402
from compiler.reference import run_float  # noqa: E402

F, I64 = np.float32, np.int64
N = helper.make_node


def model(nodes, x_shape, inits=(), opset=13, y_shape=None):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)
    g = helper.make_graph(nodes, "t", [x], [y],
                          [numpy_helper.from_array(np.asarray(a), k) for k, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def ort_run(m, x):
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


def resize(mode, coord, scales=None, sizes=None, opset=13, **attrs):
    ins = ["x", "", "sc"] if sizes is None else ["x", "", "", "sz"]
    inits = [("sc", np.array(scales, F))] if sizes is None else [("sz", np.array(sizes, I64))]
    return [N("Resize", ins, ["y"], mode=mode, coordinate_transformation_mode=coord,
              **attrs)], inits, opset


CASES = {
    "pad_constant_value": ([N("Pad", ["x", "p", "v"], ["y"])],
                           [("p", np.array([0, 0, 1, 2, 0, 0, 2, 1], I64)),
                            ("v", np.array(1.5, F))], 13),
    "pad_constant_attr_opset2": ([N("Pad", ["x"], ["y"], pads=[0, 0, 1, 1, 0, 0, 1, 1],
                                    value=-0.75)], [], 2),
    "pad_reflect": ([N("Pad", ["x", "p"], ["y"], mode="reflect")],
                    [("p", np.array([0, 0, 2, 1, 0, 0, 1, 3], I64))], 13),
    "pad_edge": ([N("Pad", ["x", "p"], ["y"], mode="edge")],
                 [("p", np.array([0, 0, 3, 0, 0, 0, 1, 2], I64))], 13),
    "pad_reflect_axes_opset18": ([N("Pad", ["x", "p", "", "ax"], ["y"], mode="reflect")],
                                 [("p", np.array([1, 2], I64)), ("ax", np.array([3], I64))],
                                 18),
    "linear_3x_half_pixel": resize("linear", "half_pixel", [1, 1, 3, 3]),
    "linear_align_corners": resize("linear", "align_corners", [1, 1, 2, 2]),
    "linear_asymmetric": resize("linear", "asymmetric", [1, 1, 2, 3]),
    "linear_downsample": resize("linear", "half_pixel", [1, 1, 0.5, 0.75]),
    "linear_sizes_pytorch": resize("linear", "pytorch_half_pixel", sizes=[1, 3, 7, 5]),
    "linear_half_pixel_symmetric": resize("linear", "half_pixel_symmetric", [1, 1, 1.5, 2.5],
                                          opset=19),
    "cubic_half_pixel": resize("cubic", "half_pixel", [1, 1, 2, 2]),
    "cubic_align_corners_a05": resize("cubic", "align_corners", [1, 1, 3, 2],
                                      cubic_coeff_a=-0.5),
    "cubic_exclude_outside": resize("cubic", "asymmetric", [1, 1, 2, 1.5], exclude_outside=1),
    "cubic_downsample": resize("cubic", "pytorch_half_pixel", [1, 1, 0.5, 0.5]),
    "maxpool_dilated": ([N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], dilations=[2, 2])],
                        [], 12),
    "maxpool_dilated_pads_strides": ([N("MaxPool", ["x"], ["y"], kernel_shape=[2, 3],
                                        dilations=[2, 2], pads=[1, 2, 1, 2],
                                        strides=[2, 1])], [], 12),
    "maxpool_dilated_stride_multiple": ([N("MaxPool", ["x"], ["y"], kernel_shape=[2, 3],
                                           dilations=[2, 2], pads=[1, 1, 1, 2],
                                           strides=[2, 4])], [], 12),
    "maxpool_dilated_3x1": ([N("MaxPool", ["x"], ["y"], kernel_shape=[3, 2],
                               dilations=[3, 1], pads=[1, 0, 2, 1])], [], 12),
}
SHAPE = (1, 3, 6, 8)


@pytest.mark.parametrize("case", sorted(CASES))
def test_imported_graph_matches_onnxruntime(case):
    nodes, inits, opset = CASES[case]
    m = model(nodes, SHAPE, inits, opset)
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(F)
    want = ort_run(m, x)
    got = run_float(import_onnx(m), {"x": x})["y"]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_interpolation_rows_sum_to_one_and_a_unit_scale_is_the_identity():
    for mode in ("linear", "cubic"):
        for coord in ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"):
            m = resize_matrix(mode, coord, 9, 4, 9 / 4)
            np.testing.assert_allclose(m.sum(axis=1), 1, atol=1e-12)
            np.testing.assert_allclose(resize_matrix(mode, coord, 5, 5, 1.0), np.eye(5),
                                       atol=1e-12)


@pytest.mark.parametrize("target,snr", [("npu-edge", 30), ("npu-edge -dtype=fp16", 60)])
@pytest.mark.parametrize("case", ["pad_constant_value", "pad_reflect", "pad_edge",
                                  "linear_3x_half_pixel", "cubic_align_corners_a05",
                                  "maxpool_dilated_pads_strides",
                                  "maxpool_dilated_stride_multiple"])
def test_runs_on_the_npu_bit_exact_and_close_to_onnxruntime(case, target, snr, tmp_path):
    """int8: bit-exact against the integer reference, SNR against onnxruntime (measured 35 to
    42 dB); fp16: no integer reference, SNR measured 67 to 76 dB."""
    from npusim import flow
    nodes, inits, opset = CASES[case]
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(F)
    y_shape = list(ort_run(model(nodes, SHAPE, inits, opset), x).shape)
    m = model(nodes, SHAPE, inits, opset, y_shape)
    path = tmp_path / f"{case}.onnx"
    onnx.save(m, str(path))
    compiled = flow.compile(str(path), target)
    v = flow.verify(compiled, flow.simulate(compiled))
    assert v.snr_db > snr and v.bit_exact is (True if target == "npu-edge" else None), v
