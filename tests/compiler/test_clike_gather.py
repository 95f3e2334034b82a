"""The C-like backends' gather kernel (slice, broadcast, nearest/bilinear upsampling lowered as
strided copies): the ONNX families that have them, built for cpu-host, bit-exact against the
integer reference, float32 within FLOAT_TOLERANCE; the CUDA source bit-exact under emulation
and compiling with nvcc -ptx; the index forms the kernel chooses."""

import re
import shutil

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx_nets import FAMILIES, Net  # noqa: E402
from test_cpu_backend import feeds_for, run_bit_exact  # noqa: E402

from compiler.backends import build  # noqa: E402
from compiler.backends.clike import FLOAT_TOLERANCE  # noqa: E402
from compiler.backends.clike.gather import axis_terms  # noqa: E402
from compiler.frontend import import_onnx  # noqa: E402

pytestmark = pytest.mark.skipif(not any(shutil.which(c) for c in ("cc", "gcc", "clang")),
                                reason="no C compiler")
# the families with a Split/Slice, a broadcast Mul (squeeze-excitation gate) or a Resize
GATHER_FAMILIES = ["shufflenet", "mobilenet_v3_se", "unet_fpn"]


def gather_net():
    """Float-lowerable: Slice on channels, an SE-style broadcast Mul, Resize nearest 2x
    (asymmetric, floor) and bilinear 2x (pytorch_half_pixel)."""
    n = Net(11)
    x = n.node("Relu", [n.conv("x", 8, 8, 3)])
    a = n.node("Slice", [x, n.const(np.array([2], np.int64), "st"),
                         n.const(np.array([6], np.int64), "en"),
                         n.const(np.array([1], np.int64), "ax")])
    a = n.conv(a, 4, 8, 1)
    s = n.node("Relu", [n.conv(n.node("GlobalAveragePool", [a]), 8, 8, 1)])
    h = n.node("Mul", [a, s])
    empty = n.const(np.zeros(0, np.float32), "roi")
    u = n.node("Resize", [h, empty, n.const(np.array([1, 1, 2, 2], np.float32), "sc")],
               mode="nearest", coordinate_transformation_mode="asymmetric",
               nearest_mode="floor")
    u = n.conv(u, 8, 4, 3)
    u = n.node("Resize", [u, empty, n.const(np.array([1, 1, 2, 2], np.float32), "sc")],
               mode="linear", coordinate_transformation_mode="pytorch_half_pixel")
    return n.model((1, 8, 6, 6), n.node("Relu", [u]), 13)


def _graph(family):
    return import_onnx(gather_net() if family == "gather_net" else FAMILIES[family]())


def _gathers(mod):
    return [k for k in mod.program.kernels if k.note.startswith("gather")]


@pytest.mark.parametrize("family", GATHER_FAMILIES + ["gather_net"])
def test_family_bit_exact_on_cpu(family):
    mod = build(_graph(family), "cpu-host")
    assert _gathers(mod), "the family has no gather layer any more"
    p, feeds, dev_in, got = run_bit_exact(mod)
    assert p.check(feeds, dev_in, got)["bit_exact"] is True


@pytest.mark.parametrize("family", ["shufflenet", "gather_net"])
def test_float32_within_tolerance(family):
    mod = build(_graph(family), "cpu-host", dtype="float32")
    p = mod.prepared
    assert _gathers(mod) and p.module is None
    feeds = feeds_for(p.float_graph)
    checks = p.check(feeds, p.device_inputs(feeds), mod.run(p.device_inputs(feeds)))
    assert checks["verified"] and checks["max_rel_error"] <= FLOAT_TOLERANCE, checks


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
@pytest.mark.parametrize("family,dtype", [(f, "int8") for f in GATHER_FAMILIES + ["gather_net"]]
                         + [("gather_net", "float32")])
def test_cuda_source_under_emulation_and_nvcc(family, dtype):
    from compiler.backends.gpu import toolchain
    from compiler.backends.gpu.emulate import emulate
    mod = build(_graph(family), "gpu-a100", dtype=dtype)
    p = mod.prepared
    feeds = feeds_for(p.float_graph)
    dev_in = p.device_inputs(feeds)
    got = emulate(mod).run(dev_in)
    if dtype == "int8":
        want = p.module.run_int(dev_in)
        for t in p.outputs:
            np.testing.assert_array_equal(got[t.name], want[t.name])
    else:
        checks = p.check(feeds, dev_in, got)
        assert checks["verified"] and checks["max_rel_error"] <= FLOAT_TOLERANCE, checks
    if toolchain.find_nvcc() is not None:
        entries = set(re.findall(r"\.entry\s+(\w+)", mod.ptx().read_text()))
        assert {k.name for k in _gathers(mod)} <= entries
        assert entries == {k.name for k in mod.program.kernels}


def test_index_forms():
    """A slice and a broadcast are affine in the output index (no table; a broadcast axis
    has no term); an upsampling's rows and columns are int32 tables of their extent: the
    repeated pixels of nearest 2x, and for bilinear the clamped border pixel either side."""
    from compiler.backends.clike.gather import source_map
    mod = build(_graph("gather_net"), "cpu-host")
    kernels = {re.match(r"gather \(.*?\) -> \(.*?\)", k.note)[0]: k for k in _gathers(mod)}
    assert sorted(kernels) == ["gather (1, 1, 1, 8) -> (1, 6, 6, 8)",
                               "gather (1, 12, 12, 4) -> (1, 26, 26, 4)",
                               "gather (1, 6, 6, 8) -> (1, 12, 12, 8)",
                               "gather (1, 6, 6, 8) -> (1, 6, 6, 4)"]
    sl = kernels["gather (1, 6, 6, 8) -> (1, 6, 6, 4)"]     # Slice: channels 2..6 of 8, NHWC
    assert sl.body == ["y[(long)d1 * 24 + (long)d2 * 4 + (long)d3 * 1] = "
                       "x[2 + (long)d1 * 48 + (long)d2 * 8 + (long)d3 * 1];"]
    se = kernels["gather (1, 1, 1, 8) -> (1, 6, 6, 8)"]     # the SE gate over 6x6 pixels
    assert se.body == ["y[(long)d1 * 48 + (long)d2 * 8 + (long)d3 * 1] = x[(long)d3 * 1];"]
    assert [a.name for a in sl.args] == [a.name for a in se.args] == ["x", "y"]
    lowered = mod.prepared.lowered
    ups = {"gather (1, 6, 6, 8) -> (1, 12, 12, 8)": (6, 6, 8, 0),
           "gather (1, 12, 12, 4) -> (1, 26, 26, 4)": (12, 12, 4, 1)}  # (h, w, c, edge)
    for note, (h, w, c, edge) in ups.items():
        k = kernels[note]
        assert [a.name for a in k.args] == ["x", "t1", "t2", "y"]
        assert k.body == [f"y[(long)d1 * {(2 * w + 2 * edge) * c} + (long)d2 * {c} + "
                          "(long)d3 * 1] = x[t1[d1] + t2[d2] + (long)d3 * 1];"]
        layer = next(lay for lay in lowered.layers if lay.name == k.layer)
        y = lowered.tensor(layer.y)
        _, terms = axis_terms(source_map(layer, lowered.tensor(layer.x).numel, y.numel),
                              y.shape)
        pixel = np.clip((np.arange(2 * h + 2 * edge) - edge) // 2, 0, h - 1)
        assert terms[1].tolist() == (pixel * w * c).tolist()
        assert terms[2].tolist() == (pixel * c).tolist()


def test_axis_terms_separate_or_refuse():
    rows, cols = np.array([0, 0, 4, 4]), np.array([0, 1, 1])
    src = (rows[:, None] + cols[None, :]).ravel()
    base, terms = axis_terms(src, (4, 3))
    assert base == 0 and terms[0].tolist() == [0, 0, 4, 4] and terms[1].tolist() == [0, 1, 1]
    assert axis_terms(np.array([0, 1, 2, 0]), (2, 2)) is None   # a transpose-like swap


def test_unseparable_map_takes_one_index_per_element(monkeypatch):
    """The fallback (no lowering makes such a map today): forced, it is still bit-exact."""
    from compiler.backends.clike import gather
    monkeypatch.setattr(gather, "axis_terms", lambda src, shape: None)
    mod = build(_graph("gather_net"), "cpu-host")
    ks = _gathers(mod)
    assert ks and all([a.name for a in k.args] == ["x", "src", "y"] for k in ks)
    p = mod.prepared
    feeds = feeds_for(p.float_graph)
    dev_in = p.device_inputs(feeds)
    assert p.check(feeds, dev_in, mod.run(dev_in))["bit_exact"] is True
