"""Issue 12's probe: a 1x3x4096x4096 input was refused only after ~44 s and 6.6 GB of
calibration, with a wrong hint ("larger buffers"); the instruction-field limits are now checked
from shapes before calibrating, naming the field, its width and the value needed."""

import numpy as np
import pytest

from cli_helpers import one_line_error, run

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from onnx_files import conv_onnx  # noqa: E402

WIDE = ("npusim: error: layer 'c' (nn.conv2d, input 3x4096x4096): its input is 4096 wide, but "
        "the in_w field of the conv instruction (input tile width) is 10 bits, at most 1023, "
        "and a tile always spans the whole width; needed: in_w = 4096. Give this layer an "
        "input at most 1023 wide (--resolution for a zoo model; a smaller export or "
        "--input-shape for an ONNX file); larger buffers do not help\n")


@pytest.fixture
def no_calibration(monkeypatch):
    from compiler.passes.calibrate import Calibrate

    def must_not_calibrate(*a, **k):
        raise AssertionError("calibrated a model that no tiling can run")
    monkeypatch.setattr(Calibrate, "run", must_not_calibrate)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", "off")


def refused_alike(monkeypatch, fits, too_big, check_says: str, lowering_says: str):
    """`fits` compiles on npu-edge; `too_big` is refused by the shape check (check_says), and,
    the check turned off, by lowering after calibrating (lowering_says): the same limit."""
    from compiler import shape_limits
    from compiler.errors import CompilerError
    from npusim import flow
    monkeypatch.setenv("NPUSIM_CACHE_DIR", "off")
    flow.compile(str(fits), "npu-edge")
    with pytest.raises(shape_limits.ShapeLimitError, match=check_says):
        flow.compile(str(too_big), "npu-edge")
    monkeypatch.setattr(shape_limits, "check_shape_limits", lambda g: None)
    with pytest.raises(CompilerError, match=lowering_says):
        flow.compile(str(too_big), "npu-edge")


def test_a_4096_wide_input_is_refused_before_calibrating(capsys, tmp_path, no_calibration):
    """It was refused after ~44 s and 6.6 GB of calibration, with 'use a Target with larger
    buffers': the real limit is the 10-bit in_w field, which no buffer size changes."""
    path = conv_onnx(tmp_path / "big.onnx", (1, 3, 4096, 4096))
    for target in ("npu-edge", "npu-server", "npu-edge -dtype=fp16"):
        code, out, err = run(capsys, "run", path, "-t", target)
        assert code == 2 and out == "" and one_line_error(err) == WIDE


def test_a_zoo_model_at_4096_is_refused_before_calibrating(capsys, no_calibration):
    code, _, err = run(capsys, "run", "resnet18", "--resolution", "4096", "--timing-only")
    assert code == 2 and one_line_error(err).startswith(
        "npusim: error: layer 'stem.conv' (nn.conv2d, input 3x4096x4096): its input is 4096 "
        "wide, but the in_w field of the conv instruction")


def test_the_shape_check_refuses_exactly_what_lowering_refuses(tmp_path, monkeypatch):
    """At the field's edge: 1023 wide compiles; 1024 is refused by the shape check, and
    lowering (the check turned off) refuses it too, after calibrating."""
    refused_alike(monkeypatch, conv_onnx(tmp_path / "w1023.onnx", (1, 3, 4, 1023)),
                  conv_onnx(tmp_path / "w1024.onnx", (1, 3, 4, 1024)),
                  "needed: in_w = 1024", "no tiling of conv 4x1024x3")


def test_a_strided_1x1_conv_is_checked_at_the_width_it_loads(tmp_path, no_calibration):
    """Lowering loads every other column of a stride-2 1x1 conv: 2048 wide loads 1024."""
    from compiler.shape_limits import ShapeLimitError
    from npusim import flow
    w = numpy_helper.from_array(np.ones((4, 3, 1, 1), np.float32), "w")
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2])], "s", [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 2, 2048])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 1, 1024])], [w])
    path = tmp_path / "s2.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    with pytest.raises(ShapeLimitError, match=r"its input is 2048 wide \(its stride-2 columns: "
                                              r"1024\).*needed: in_w = 1024"):
        flow.compile(str(path), "npu-edge")




def _one_op_onnx(path, node, x_shape, y_shape, inits=()):
    g = helper.make_graph([node], "one", [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y_shape))], list(inits))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return str(path)


@pytest.mark.parametrize("node,x,y,inits,message", [
    (helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2]),
     (1, 3, 2, 1024), (1, 3, 1, 512), (),
     "layer 'y' (nn.max_pool2d, input 3x2x1024): its input is 1024 wide, but the in_w field "
     "of the pooling instructions (vmaxpool, vsumpool) (input width) is 10 bits, at most 1023"),
    (helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[256, 1]),
     (1, 1, 256, 2), (1, 1, 1, 2), (),
     "layer 'y' (nn.avg_pool2d, input 1x256x2): pooling window 256x1 exceeds the pool_kh "
     "register (at most 255); needed: 256. Pool in several smaller steps"),
    (helper.make_node("Conv", ["x", "w"], ["y"], pads=[16, 0, 16, 0]),
     (1, 3, 4, 4), (1, 2, 34, 2), (numpy_helper.from_array(np.ones((2, 3, 3, 3), np.float32),
                                                           "w"),),
     "layer 'y' (nn.conv2d, input 3x4x4): padding 16 on the top exceeds the conv_pad_top "
     "register (at most 15); needed: 16. Pad the input explicitly in the model instead"),
    (helper.make_node("GlobalAveragePool", ["x"], ["y"]), (1, 2, 256, 4), (1, 2, 1, 1), (),
     "layer 'y' (nn.global_avg_pool2d, input 2x256x4): pooling window 256x4 (a global pool's "
     "window is its whole map) exceeds the pool_kh register (at most 255); needed: 256. Give "
     "the pool a map at most 255 on a side"),
])
def test_pool_and_padding_limits_are_refused_before_calibrating(tmp_path, no_calibration,
                                                                 node, x, y, inits, message):
    from compiler.shape_limits import ShapeLimitError
    from npusim import flow
    path = _one_op_onnx(tmp_path / "m.onnx", node, x, y, inits)
    with pytest.raises(ShapeLimitError) as e:
        flow.compile(path, "npu-edge")
    assert str(e.value).startswith(message)


def test_the_pool_width_check_refuses_exactly_what_lowering_refuses(tmp_path, monkeypatch):
    pool = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    refused_alike(monkeypatch,
                  _one_op_onnx(tmp_path / "p1022.onnx", pool, (1, 3, 2, 1022), (1, 3, 1, 511)),
                  _one_op_onnx(tmp_path / "p1024.onnx", pool, (1, 3, 2, 1024), (1, 3, 1, 512)),
                  "needed: in_w = 1024", "no tiling of pool 2x1024x3")


def test_the_global_pool_check_refuses_exactly_what_lowering_refuses(tmp_path, monkeypatch):
    """A 2048x1000 MobileNetV2-like input reached the global pool's 512x250 map only after
    82 s and 3.2 GB of calibration; the shape check now refuses it. At the register's edge:
    255 rows compile; 256 are refused by the check, and by lowering without it."""
    gap = helper.make_node("GlobalAveragePool", ["x"], ["y"])
    refused_alike(monkeypatch,
                  _one_op_onnx(tmp_path / "g255.onnx", gap, (1, 2, 255, 3), (1, 2, 1, 1)),
                  _one_op_onnx(tmp_path / "g256.onnx", gap, (1, 2, 256, 3), (1, 2, 1, 1)),
                  "needed: 256", "pool window 256x3")


def test_a_model_whose_weights_cannot_fit_the_dram_is_refused_before_calibrating(
        capsys, no_calibration):
    """ResNet-18 at 1000x1000 on npu-tiny (1 MiB of DRAM) took 104 s and 1.5 GB of
    calibration before the memory image refused it; its 11.7 MB of weights say so at once."""
    code, _, err = run(capsys, "run", "resnet18", "--resolution", "1000", "-t", "npu-tiny",
                       "--timing-only")
    assert code == 2 and one_line_error(err) == (
        "npusim: error: the model needs at least 14,678,912 bytes of DRAM (11,678,912 of int8 "
        "conv/dense weights, 3,000,000 of its inputs or outputs), more than the Target's "
        "1,048,576; use a Target with larger dram-mb (or a smaller input)\n")


def test_a_cached_front_half_is_refused_alike(tmp_path, monkeypatch):
    """The check runs before calibration; a front half already in the cache (compiled for
    another Target) skips calibration, and must still give the same refusal, not the
    memory image's later one (the golden program_hashes entries depend on it)."""
    from compiler.shape_limits import ShapeLimitError
    from npusim import flow
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    flow.compile("resnet18", "npu-edge", resolution=32, evaluate=None)  # fills the cache
    with pytest.raises(ShapeLimitError, match=r"needs at least 11,681,984 bytes of DRAM "
                       r"\(11,678,912 of int8 conv/dense weights"):
        flow.compile("resnet18", "npu-tiny", resolution=32)
    # quantized for no Target first (as the C backend does): the NPU's field limits still hold
    from compiler.build import build_quantized
    wide = str(conv_onnx(tmp_path / "w1024.onnx", (1, 3, 4, 1024)))
    build_quantized(wide, num_calib=1)
    with pytest.raises(ShapeLimitError, match="needed: in_w = 1024"):
        flow.compile(wide, "npu-edge", num_calib=1)
    # and the fp16 path's float front half, cached by the C backend's float32 compile first
    from compiler.build import float_front_half
    float_front_half(wide)
    with pytest.raises(ShapeLimitError, match="needed: in_w = 1024"):
        flow.compile(wide, "npu-edge -dtype=fp16")


@pytest.mark.parametrize("model", ["small_cnn", "mobilenetv2"])
def test_the_dram_bound_is_below_what_the_compiled_image_holds(model, monkeypatch):
    """The bound never refuses what fits: the compiled image (activations + constants) of a
    model is at least the bound computed from its float graph."""
    from compiler.build import load_model
    from compiler.shape_limits import dram_lower_bound
    from npusim import flow
    monkeypatch.setenv("NPUSIM_CACHE_DIR", "off")
    kw = {"resolution": 32} if model == "mobilenetv2" else {}
    w, a = dram_lower_bound(load_model(model, **kw))
    meta = flow.compile(model, "npu-edge", **kw).artifact.meta
    assert 0 < w + a <= meta["activation_bytes"] + meta["constant_bytes"], (w, a, meta)
