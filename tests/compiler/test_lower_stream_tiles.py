"""Tiles that stream longer past the array (issue 17's per-layer fidelity): a strided 1x1 conv
with windows past the input keeps its strided loads, an output-stationary conv splits its
reduction into the fewest slices wbuf holds, and a batched dense of more rows than the conv's
in_h field streams them as a wider image. Each bit-exact against the integer reference."""

import numpy as np

from compiler.ir.graph import Graph, Node
from compiler.ir.types import TensorType
from compiler.lower.conv import choose_schedule
from compiler.lower.cost import Hw
from compiler.lower.dense import _image
from compiler.lower.epilogue import Epilogue
from compiler.lower.geometry import ConvGeom, subsample
from compiler.passes.infer import infer_types
from isa.target import Target

from test_codegen_models import run_and_compare
from test_lower_im2col import CALC, conv_graph


def test_a_strided_1x1_with_windows_past_the_input_subsamples_and_pads_in_the_conv():
    # SCALE-Sim's Conv3_s: 56 -> ceil(57 / 2) = 29 outputs, the last window one row and
    # column past the input: 28 rows read, the 29th the conv's zero padding
    g = ConvGeom(1, 56, 56, 64, 128, 1, 1, 2, 2, (0, 0, 1, 1))
    assert subsample(g) == ConvGeom(1, 28, 28, 64, 128, 1, 1, pads=(0, 0, 1, 1))
    assert subsample(ConvGeom(1, 56, 56, 64, 128, 1, 1, 2, 2)) == ConvGeom(1, 28, 28, 64, 128,
                                                                           1, 1)
    assert subsample(ConvGeom(1, 56, 56, 64, 128, 1, 1, 2, 2, (1, 1, 0, 0))) is None
    graph = conv_graph(1, 13, 11, 16, 24, 1, 2, (0, 0, 1, 1))
    lowered, fast = run_and_compare(graph, "npu-edge")
    (layer,) = lowered.layers
    assert layer.sub == (13, 11, 2, 2) and (layer.geom.h, layer.geom.w) == (7, 6)
    assert (layer.geom.oh, layer.geom.ow) == (7, 6) and layer.geom.pads == (0, 0, 0, 0)
    graph = conv_graph(1, 12, 12, 16, 24, 1, 2, (0, 0, 1, 1))  # 12 -> 7: one padded window
    lowered, fast = run_and_compare(graph, "npu-edge")
    (layer,) = lowered.layers
    assert layer.sub == (12, 12, 2, 2) and layer.geom.pads == (0, 0, 1, 1)
    _, slow = run_and_compare(graph, "npu-edge", subsample=False)
    assert fast.cycles < slow.cycles


def test_an_output_stationary_conv_takes_the_fewest_slices_wbuf_holds():
    # 3 x 3 x 512 x 32 weights are 144 KiB: 64 KiB of wbuf holds 192 channels' (54 KiB), so
    # 3 slices (192, 192, 128), each paying a fold's R + C - 1, not 4 of 128
    hw = Hw.from_target(Target.create(f"npu -array=32x32 -wbuf-kb=64 -dataflow=os {CALC}"))
    epi = Epilogue(bias=np.zeros(512, np.int32), mult=np.ones(512, np.int32),
                   shift=np.zeros(512, np.int32))
    s = choose_schedule(ConvGeom(1, 7, 7, 512, 512, 3, 3), epi, hw)
    assert s.cin_slice == 192 and s.est["matrix"] == 16 * (9 * 512 + 3 * 63)
    graph = conv_graph(1, 5, 5, 96, 32, 3, 1, (1, 1, 1, 1))
    tag = f"npu -array=8x8 -wbuf-kb=4 -dataflow=os {CALC}"  # 3 x 3 x 96 x 8 = 6.75 KiB
    lowered, _ = run_and_compare(graph, tag)
    (layer,) = lowered.layers
    assert layer.schedule.cin_slice == 48  # 2 slices of 3.4 KiB (powers of two: 3 of 32)


def dense_graph(m, k, n, seed=0):
    r = np.random.default_rng(seed)
    g = Graph("batched_dense")
    g.add_input("x", TensorType((m, k), "int8"))
    ins = ["x", g.add_constant("w", r.integers(-127, 128, (k, n)).astype(np.int8)),
           g.add_constant("b", r.integers(-2000, 2000, n).astype(np.int32)),
           g.add_constant("m", r.integers(1 << 30, 1 << 31, n).astype(np.int32)),
           g.add_constant("s", r.integers(38, 42, n).astype(np.int32))]
    g.add_node(Node("qnn.dense", ins, "y", {"act": "relu"}))
    g.outputs = ["y"]
    return infer_types(g)


def test_a_batched_dense_past_the_in_h_field_streams_as_a_wider_image():
    assert _image(1023) == (1023, 1) and _image(1024) == (2, 512)
    assert _image(12100) == (20, 605) and _image(1031) == (1031, 1)  # a prime stays a column
    lowered, _ = run_and_compare(dense_graph(1024, 256, 64), f"npu -array=16x16 {CALC}")
    (layer,) = lowered.layers
    assert (layer.geom.h, layer.geom.w) == (2, 512)
    assert layer.schedule.rows * layer.geom.w == 1024  # every row past each weight tile
    lowered, _ = run_and_compare(dense_graph(200, 64, 16), "npu-edge")
    assert (lowered.layers[0].geom.h, lowered.layers[0].geom.w) == (200, 1)  # as before
