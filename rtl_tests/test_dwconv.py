"""pytest entry: the depthwise-mode matrix unit RTL (rtl/dwconv_unit.v) vs npusim (cocotb on
Icarus): npu-tiny's 4x4 array, a non-square one and 8x8, each with -depthwise-mode=1."""

import pytest

from rtl_tests.runner import run_unit

TARGETS = ["npu-tiny -depthwise-mode=1", "npu-tiny -array=6x3 -depthwise-mode=1",
           "npu-tiny -array=8x8 -depthwise-mode=1"]


@pytest.mark.parametrize("target", TARGETS)
def test_dwconv_unit_matches_model(target):
    run_unit("dwconv", target)
