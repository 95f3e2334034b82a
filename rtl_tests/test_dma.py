"""pytest entry: the DMA engine RTL (+ DRAM model) vs npusim (cocotb on Icarus), several DRAMs."""

import pytest

from rtl_tests.runner import run_unit

# the tiny tag; 6-byte beats (int32 elements straddle beats) with no latency and no setup;
# a 3-lane zero fill (the fill term binds for most padded loads; lanes cross rows unevenly);
# the edge tag's 16 B/cycle, 100-cycle DRAM
TARGETS = ["npu-tiny", "npu-tiny -dram-bw=6 -dram-latency=0 -dma-setup=0",
           "npu-tiny -dma-fill-lanes=3", "npu-edge"]


@pytest.mark.parametrize("target", TARGETS)
def test_dma_engine_matches_model(target):
    run_unit("dma", target)
