"""Verilator -Wall lint of the RTL core (rtl/npu_core.v and everything under it) at the sizes of
each npu tag the core can take (one core, one DMA channel); waivers are in the RTL with reasons."""

import pytest

from rtl_tests.tb.core_params import core_params
from rtl_tests.tb.core_runner import CORE_SOURCES, MATRIX_UNIT_SOURCES
from rtl_tests.test_lint import lint

TARGETS = ["npu-tiny", "npu-edge -dma-engines=1", "npu-server -num-cores=1 -dma-engines=1",
           "npu-edge -dma-engines=1 -dataflow=os", "npu-tiny -depthwise-mode=1",
           "npu-edge -dma-engines=1 -depthwise-mode=1"]


@pytest.mark.parametrize("target", TARGETS)
def test_core_lints_clean(target):
    result = lint("npu_core", CORE_SOURCES, core_params(target))
    assert result.returncode == 0, f"verilator -Wall on npu_core ({target}):\n{result.stderr}"


@pytest.mark.parametrize("top,sources", [
    ("dispatcher", ["dispatcher.v"]), ("unit_queue", ["unit_queue.v"]),
    ("semaphores", ["semaphores.v"]),
    ("matrix_unit", MATRIX_UNIT_SOURCES), ("matrix_unit_dw", MATRIX_UNIT_SOURCES)])
def test_core_parts_lint_clean(top, sources):
    result = lint(top, sources, {})
    assert result.returncode == 0, f"verilator -Wall on {top}:\n{result.stderr}"
