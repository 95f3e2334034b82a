"""pytest entry: the DMA engine RTL (+ DRAM model) vs npusim (cocotb on Icarus)."""

from rtl_tests.runner import run_unit


def test_dma_engine_matches_model_npu_tiny():
    run_unit("dma", "npu-tiny")
