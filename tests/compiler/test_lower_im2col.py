"""The im2col rewrite (compiler/lower/im2col.py): a small-cin conv as a copy of every output
pixel's window into the channels and a 1x1 conv over them: its exact moves, passes and
cycles on a small case, bit-exactness at the borders, and where the cost model keeps it."""

import numpy as np
import pytest

from compiler.ir.graph import Graph, Node
from compiler.ir.types import TensorType
from compiler.lower.cost import Hw
from compiler.lower.geometry import ConvGeom
from compiler.lower.im2col import copy_dmas, im2col
from compiler.lower.program import lower
from compiler.passes.infer import infer_types
from isa.target import Target

from test_codegen_models import run_and_compare

CALC = "-dram-bw=1024 -dram-latency=0"  # npusim scalesim's ideal memory
ONLY_IM2COL = dict(s2d=False, fold=False, swap=False)


def conv_graph(n, h, w, cin, cout, k, stride, pads, dilations=(1, 1), seed=0):
    """One qnn.conv2d with any (top, left, bottom, right) padding and row/column dilation."""
    r = np.random.default_rng(seed)
    g = Graph("one_conv")
    g.add_input("x", TensorType((n, h, w, cin), "int8"))
    ins = ["x", g.add_constant("w", r.integers(-127, 128, (k, k, cin, cout)).astype(np.int8)),
           g.add_constant("b", r.integers(-2000, 2000, cout).astype(np.int32)),
           g.add_constant("m", r.integers(1 << 30, 1 << 31, cout).astype(np.int32)),
           g.add_constant("s", r.integers(38, 42, cout).astype(np.int32))]
    g.add_node(Node("qnn.conv2d", ins, "y", dict(strides=(stride, stride), pads=tuple(pads),
                                                 dilations=tuple(dilations), act="relu")))
    g.outputs = ["y"]
    return infer_types(g)


def test_a_3x3_conv_on_3_channels_is_4_passes_of_a_1x1_conv_with_exact_moves_and_cycles():
    tag = f"npu -array=8x8 {CALC}"
    g = conv_graph(1, 6, 6, 3, 8, 3, 1, (1, 1, 1, 1))
    lowered, result = run_and_compare(g, tag, **ONLY_IM2COL)  # bit-exact with run_int
    copy, conv = lowered.layers
    assert (type(copy).__name__, type(conv).__name__) == ("Im2colCopyLayer", "ConvLayer")
    assert conv.geom == ConvGeom(1, 6, 6, 27, 8, 1, 1) and conv.macs == 6 * 6 * 27 * 8
    # one piece per kernel row (6 output rows fit one chunk): kernel row 0 has output row 0
    # in the top padding (a zero store), rows 1-5 valid; its windows 1-4 are inside the image
    # (one load, one store), windows 0 and 5 cross the left/right border (a load whose 3 zero
    # elements are its padding, and a store, each); row 1 has no zero row; row 2 as row 0.
    # And the zero slot's load.
    assert [len(copy.plan(p)) for p in copy.pieces()] == [7, 6, 7]
    assert copy_dmas(copy) == 21
    ops = [ln.split()[0] for ln in generate_text(lowered) if "y.im2col" in ln]
    assert (ops.count("load"), ops.count("store")) == (1 + 9, 11)
    # K = 27 = 8 + 8 + 8 + 3 rows: 4 passes of kp + m + R + C - 1 with m = 36 pixels, against
    # the 9 taps' passes of 3 + 36 + 15 a conv without the copy makes
    hw = Hw.from_target(Target.create(tag))
    assert hw.conv(36, 1, 1, 27, 8) == 3 * (8 + 36 + 15) + (3 + 36 + 15) == 231
    assert hw.conv(36, 3, 3, 3, 8) == 9 * (3 + 36 + 15) == 486
    matrix = result.trace[result.trace.mnemonic == "conv"]
    assert len(matrix) == 1 and int((matrix.end - matrix.start).sum()) == 231


def generate_text(lowered) -> list:
    from compiler.backends.npu.codegen import generate
    return generate(lowered).text.splitlines()


@pytest.mark.parametrize("shape,tag", [
    # a 7x7/2 stem, 3 channels, padding 3: the left border's 9 zero elements are more than a
    # load pads (7), so they are stores from the zero slot
    (dict(n=1, h=33, w=31, cin=3, cout=40, k=7, stride=2, pads=(3, 3, 3, 3)), "npu -array=32x32"),
    # SCALE-Sim's windows past the input: padding below and right only
    (dict(n=2, h=12, w=11, cin=4, cout=8, k=3, stride=2, pads=(0, 0, 1, 1)), "npu-edge"),
    # a window wider than the image's 2 left columns of padding, on a 4x4 array
    (dict(n=1, h=9, w=9, cin=2, cout=5, k=5, stride=1, pads=(2, 2, 2, 2)), "npu-tiny"),
    (dict(n=1, h=10, w=10, cin=6, cout=16, k=3, stride=1, pads=(1, 0, 2, 1)),
     "npu -array=8x8 -ibuf-kb=4"),
])
def test_small_cin_convs_through_im2col_are_bit_exact(shape, tag):
    g = conv_graph(shape["n"], shape["h"], shape["w"], shape["cin"], shape["cout"],
                   shape["k"], shape["stride"], shape["pads"], seed=shape["cin"])
    # with ideal memory, where the cost model keeps the copy (it is exact on any memory)
    lowered, _ = run_and_compare(g, f"{tag} {CALC}", seed=shape["k"], **ONLY_IM2COL)
    assert [type(x).__name__ for x in lowered.layers] == ["Im2colCopyLayer", "ConvLayer"]


def test_row_dilation_goes_through_im2col_and_column_dilation_does_not():
    geom = ConvGeom(1, 12, 12, 3, 8, 3, 3, pads=(2, 2, 2, 2), dh=2, dw=2)
    assert im2col(geom, 8) is None  # a window's row is no longer one contiguous run
    g = conv_graph(1, 12, 12, 3, 8, 3, 1, (2, 1, 2, 1), dilations=(2, 1))
    lowered, _ = run_and_compare(g, f"npu -array=8x8 {CALC}", **ONLY_IM2COL)
    assert [type(x).__name__ for x in lowered.layers] == ["Im2colCopyLayer", "ConvLayer"]
    assert lowered.layers[0].im.geom.dh == 2


def test_it_applies_only_where_it_saves_passes():
    assert im2col(ConvGeom(1, 8, 8, 64, 64, 3, 3, pads=(1,) * 4), 32) is None  # cin fills R
    assert im2col(ConvGeom(1, 8, 8, 3, 64, 1, 1), 32) is None                 # nothing to fold
    assert im2col(ConvGeom(1, 8, 8, 3, 64, 3, 3, groups=3), 32) is None       # grouped
    im = im2col(ConvGeom(1, 224, 224, 3, 64, 7, 7, 2, 2, (3, 3, 3, 3)), 16)
    assert im.new == ConvGeom(1, 112, 112, 147, 64, 1, 1)  # 10 passes instead of 49


def test_the_cost_model_keeps_it_where_it_is_faster_and_not_where_it_is_not():
    # a stem on a 32x32 array with ideal memory (npusim scalesim's CALC): the copy is cheap,
    # 5 passes of 32 rows instead of 16 of 12 (space-to-depth) or 7 of 21 (columns folded)
    stem = conv_graph(1, 33, 31, 3, 64, 7, 2, (3, 3, 3, 3))
    fast, with_copy = run_and_compare(stem, f"npu -array=32x32 {CALC}")
    assert [type(x).__name__ for x in fast.layers] == ["Im2colCopyLayer", "ConvLayer"]
    _, without = run_and_compare(stem, f"npu -array=32x32 {CALC}", im2col=False)
    assert with_copy.cycles < without.cycles
    # npu-edge's 224 stem at 16 B/cycle: the copy's 3.7 MB of DRAM traffic costs more than
    # the 2 passes of 16 it saves over the folded columns; the folded copy stays
    stem = conv_graph(1, 224, 224, 3, 64, 7, 2, (3, 3, 3, 3))
    kept, folded = run_and_compare(stem, "npu-edge")
    assert [type(x).__name__ for x in kept.layers] == ["FoldCopyLayer", "ConvLayer"]
    _, forced = run_and_compare(stem, "npu-edge", **ONLY_IM2COL)
    assert folded.cycles < forced.cycles
