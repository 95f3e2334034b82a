"""The array's depthwise mode (Target -depthwise-mode=1, the dwconv instruction): depthwise convs
lower to dwconv tiles only where the array has it, bit-exact against the integer reference
(padding, stride, kernels with more taps than array rows, several cores), faster than both the
block-diagonal conv and the row-Toeplitz tiles; and a quantized clip at vrequant's own clamps
(relu6) costs no vclip."""

import pytest

from compiler.backends.npu.codegen import generate
from compiler.lower.conv import ConvLayer
from compiler.lower.program import lower
from test_codegen_models import run_and_compare
from test_lower_depthwise import dw_graph
from test_lower_tiling import qconv_graph

MODE = "npu-edge -depthwise-mode=1"
NO_MODE = "npu-edge -depthwise-mode=0"  # npu-edge has the mode; the array without it


def _mnemonics(lowered) -> set:
    return {line.split()[0] for line in generate(lowered).text.splitlines()
            if line.strip() and not line.lstrip().startswith((";", "L"))}


@pytest.mark.parametrize("tag,h,c,k,stride,pad", [
    (MODE, 28, 16, 3, 1, 1), (MODE, 14, 20, 3, 1, 1), (MODE, 15, 24, 3, 2, 1),
    (MODE, 12, 5, 5, 1, 2),                           # 25 taps: two passes on 16 rows
    ("npu-tiny -depthwise-mode=1", 8, 6, 3, 1, 1),    # 9 taps on 4 rows: three passes
    ("npu-edge -depthwise-mode=1 -num-cores=2", 14, 40, 3, 1, 1)])
def test_bit_exact_as_dwconv_tiles(tag, h, c, k, stride, pad):
    g = qconv_graph(1, h, h, c, c, k, stride, pad, groups=c)
    # the conv tiler's dwconv tiles (the grouped transfers of lower/dwconv.py: test_dwconv_groups)
    lowered, _ = run_and_compare(g, tag, dwgroup=False)
    (layer,) = lowered.layers
    assert isinstance(layer, ConvLayer)
    ops = _mnemonics(lowered)
    assert "dwconv" in ops and "conv" not in ops


def test_no_dwconv_without_the_mode():
    g = dw_graph(14, 32, 3, 1)
    for tag in (NO_MODE, "npu-edge -depthwise-mode=1 -dataflow=os", "npu-edge -dataflow=os"):
        assert "dwconv" not in _mnemonics(lower(g, tag))


def test_a_grouped_conv_of_several_channels_a_group_stays_block_diagonal():
    g = qconv_graph(1, 14, 14, 32, 32, 3, 1, 1, groups=8)
    assert "dwconv" not in _mnemonics(lower(g, MODE))


def test_faster_than_the_block_diagonal_and_row_toeplitz_tiles():
    # MobileNetV2's 56-wide stride-1 depthwise conv (row-Toeplitz without the mode) and a
    # 14-wide one (block-diagonal without it)
    for h, c in ((56, 32), (14, 96)):
        g = dw_graph(h, c, 3, 1)
        _, fast = run_and_compare(g, MODE)
        _, slow = run_and_compare(g, NO_MODE)
        assert fast.cycles < 0.7 * slow.cycles, (h, c, fast.cycles, slow.cycles)


def test_one_pass_per_tile_of_16_channels():
    # 14x14x16, 3x3 pad 1: each row tile one dwconv pass of 9 taps over its pixels,
    # 9 + m + 16 + 16 - 1 cycles on the array (the block-diagonal conv: 9 such passes)
    lowered = lower(dw_graph(14, 16, 3, 1), MODE, dwgroup=False)
    tiles = generate(lowered).text.count("dwconv ")
    assert tiles >= 1
    assert lowered.layers[0].schedule.est["matrix"] == tiles * (9 + 31) + 196
def _relu6_graph(zp_lo):
    """A quantized 1x1 conv whose activation is clip(lo, 127): lo = the output zero point
    (relu6 with 6.0 at 127) or above it."""
    g = qconv_graph(1, 8, 8, 16, 16, 1, 1, 0)
    (node,) = g.nodes
    node.attrs.update(act="clip", act_lo=zp_lo, act_hi=127)
    return g


def test_a_clip_at_the_requant_clamps_rides_on_vrequant():
    lowered, _ = run_and_compare(_relu6_graph(0), "npu-edge")
    assert "vclip" not in _mnemonics(lowered)
    # a lower bound above the zero point is a real clip: bit-exact with its vclip
    lowered, _ = run_and_compare(_relu6_graph(5), "npu-edge")
    assert "vclip" in _mnemonics(lowered)
