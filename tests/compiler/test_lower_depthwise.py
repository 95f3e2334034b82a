"""The row-Toeplitz depthwise lowering (compiler.lower.depthwise): its stationary tiles are the
kernel rows as 1-D correlations, it is bit-exact against the integer reference on the NPU
(padding, kernel sizes, several cores), it is chosen only where it is faster, and it is."""

import numpy as np
import pytest

from compiler.lower.cost import Hw
from compiler.lower.depthwise import DepthwiseLayer, choose_depthwise, store_role
from compiler.lower.program import lower
from isa.target import Target
from test_codegen_models import run_and_compare
from test_lower_tiling import qconv_graph


# the row-Toeplitz lowering is for arrays without the depthwise mode (npu-edge has it), and
# these shapes take it on PEs of one weight bank (two make the block-diagonal conv cheaper)
NO_MODE = "npu-edge -depthwise-mode=0 -weight-buffers=1"


def dw_graph(h, c, k, pad, seed=0):
    """A depthwise qnn.conv2d on an h x h map of c channels, k x k kernel, stride 1."""
    return qconv_graph(1, h, h, c, c, k, 1, pad, groups=c, seed=seed)


def test_toeplitz_tile_is_each_kernel_row_as_a_correlation():
    g = dw_graph(28, 4, 3, 1)
    (layer,) = lower(g, NO_MODE).layers
    assert isinstance(layer, DepthwiseLayer)
    s = layer.schedule
    assert (s.n, s.k, s.blocks, s.hp, s.m) == (14, 16, 2, 30, 58)
    r = np.random.default_rng(1)
    window = r.integers(-128, 128, s.k)
    for c in range(4):
        t = layer.toeplitz(c)
        for ky in range(3):
            want = [sum(int(layer.weights[ky, kx, 0, c]) * int(window[j + kx])
                        for kx in range(3)) for j in range(s.n)]
            assert (window @ t[ky].astype(np.int64)).tolist() == want
    # block 0 reads one zero pixel before column 0, the last one zero after column 27
    assert layer.window(0) == (0, 1, 15, 0) and layer.window(1) == (13, 0, 15, 1)


@pytest.mark.parametrize("h,c,k,pad", [(28, 16, 3, 1), (28, 5, 3, 0), (24, 3, 5, 2),
                                       (16, 20, 3, 1)])
def test_bit_exact_on_the_npu(h, c, k, pad):
    lowered, _ = run_and_compare(dw_graph(h, c, k, pad), NO_MODE, rowdw=True)
    (layer,) = lowered.layers
    assert isinstance(layer, DepthwiseLayer)


def test_narrow_maps_of_many_channels_keep_the_block_diagonal_conv():
    # 14 wide: one block a row, kh weight preloads and array fills per channel for 14 rows
    # of work; 16 channels a pass on the diagonal is faster (MobileNetV2's 14x14x384)
    (layer,) = lower(dw_graph(14, 384, 3, 1), NO_MODE).layers
    assert type(layer).__name__ == "ConvLayer"


def test_bit_exact_split_over_cores():
    lowered, _ = run_and_compare(dw_graph(28, 6, 3, 1), f"{NO_MODE} -num-cores=2")
    assert isinstance(lowered.layers[0], DepthwiseLayer)


def test_a_dense_conv_on_several_cores_is_not_taken_for_one():
    # one core's share of a dense conv is not a depthwise conv of that many channels
    (layer,) = lower(qconv_graph(1, 28, 28, 64, 24, 1, 1, 0), f"{NO_MODE} -num-cores=4").layers
    assert type(layer).__name__ == "ConvLayer"


def test_faster_than_block_diagonal_where_chosen():
    g = dw_graph(56, 32, 3, 1)
    lowered, fast = run_and_compare(g, NO_MODE)
    assert isinstance(lowered.layers[0], DepthwiseLayer)
    plain, slow = run_and_compare(g, NO_MODE, rowdw=False)
    assert type(plain.layers[0]).__name__ == "ConvLayer"
    assert fast.cycles < 0.6 * slow.cycles
    # the estimate the choice was made by is within 10% of the simulated cycles
    est = lowered.layers[0].schedule.est["cycles"]
    assert abs(est - fast.cycles) < 0.1 * fast.cycles


def test_refuses_what_it_does_not_lower():
    hw = Hw.from_target(Target.create(NO_MODE))
    from compiler.lower.geometry import ConvGeom
    from compiler.lower.epilogue import Epilogue
    c = 16
    q = Epilogue(bias=np.zeros(c, np.int32), mult=np.ones(c, np.int32),
                 shift=np.ones(c, np.int32))
    ok = ConvGeom(1, 28, 28, c, c, 3, 3, 1, 1, (1, 1, 1, 1), 1, 1, c)
    assert choose_depthwise(ok, q, hw) is not None
    for bad in (ConvGeom(1, 28, 28, c, c, 3, 3, 2, 2, (1, 1, 1, 1), 1, 1, c),   # stride
                ConvGeom(1, 28, 28, c, c, 3, 3, 1, 1, (1, 1, 1, 1), 2, 2, c),   # dilation
                ConvGeom(1, 28, 28, c, 2 * c, 3, 3, 1, 1, (1, 1, 1, 1), 1, 1, c),  # x2
                ConvGeom(1, 28, 28, c, c, 3, 3, 1, 1, (1, 1, 1, 1), 1, 1, 1),   # dense
                ConvGeom(1, 29, 29, c, c, 3, 3, 1, 1, (1, 1, 1, 1), 1, 1, c)):  # 29 prime
        assert choose_depthwise(bad, q, hw) is None
    # a residual add in the epilogue (none follows a depthwise conv in MobileNets)
    res = Epilogue(bias=np.zeros(c, np.int32), mult=np.ones(c, np.int32),
                   shift=np.ones(c, np.int32), residual="r")
    assert choose_depthwise(ok, res, hw) is None
    fp16 = Hw.from_target(Target.create(f"{NO_MODE} -dtype=fp16"))
    assert choose_depthwise(ok, Epilogue(bias=np.zeros(c, np.float32)), fp16) is not None


def test_scatters_go_on_an_idle_channel():
    assert store_role(1) == "out" and store_role(2) == "w" and store_role(3) == "out"


def test_fp16_depthwise_agrees_with_onnxruntime(tmp_path):
    """fp16 (fp32 accumulation in another order than the reference): SNR against
    onnxruntime running the file, on the row-Toeplitz lowering."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    from npusim import flow
    c = 24
    w = np.random.default_rng(2).standard_normal((c, 1, 3, 3)).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], group=c, pads=[1, 1, 1, 1])
    g = helper.make_graph([node], "dw", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, c, 28, 28])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [1, c, 28, 28])], [numpy_helper.from_array(w, "w")])
    path = tmp_path / "dw.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    compiled = flow.compile(str(path), f"{NO_MODE} -dtype=fp16")
    # (NCHW in and out of the file: a layout copy before and after)
    assert [type(x).__name__ for x in compiled.built.lowered.layers] == \
        ["CopyLayer", "DepthwiseLayer", "CopyLayer"]
    v = flow.verify(compiled, flow.simulate(compiled))
    assert v.snr_db > 60, v
