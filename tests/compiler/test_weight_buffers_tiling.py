"""The tile choosers on PEs with two weight banks (-weight-buffers=2): the cost model prices a
conv's passes by matrix_conv_wb2, so the small maps that swapped roles (gemm tiles, the weights
streaming) win on one bank go back to conv tiles there, and stay bit-exact."""

from compiler.lower.program import lower
from isa.target import Target
from test_codegen_models import run_and_compare
from test_dwconv_mode import _mnemonics
from test_lower_tiling import qconv_graph


def test_layer4_maps_take_conv_tiles_with_two_banks():
    """ResNet-18 layer4's shape (7x7 maps, 3x3 taps, 256 channels): one bank swaps the roles
    (49 rows a pass against 47 cycles of preload and fill), two banks keep the conv form."""
    g = qconv_graph(1, 7, 7, 256, 256, 3, 1, 1)
    one = _mnemonics(lower(g, Target.create("npu-edge -weight-buffers=1")))
    two = _mnemonics(lower(g, Target.create("npu-edge -weight-buffers=2")))
    assert "gemm" in one and "conv" not in one
    assert "conv" in two and "gemm" not in two


def test_two_bank_conv_tiles_are_bit_exact():
    g = qconv_graph(1, 7, 7, 40, 24, 3, 1, 1)
    lowered, _ = run_and_compare(g, "npu-tiny -weight-buffers=2")
    assert "conv" in _mnemonics(lowered)
