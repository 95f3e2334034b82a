"""pytest entry: the matrix engine RTL vs npusim (cocotb on Icarus), at several array shapes."""

import pytest

from rtl_tests.runner import run_unit

# the tiny tag; a non-square array (catches rows/columns mix-ups); 8x8. Larger arrays simulate
# slowly in Icarus (its cost grows with the square of the memory lanes): they are linted only.
TARGETS = ["npu-tiny", "npu-tiny -array=6x3", "npu-tiny -array=8x8",
           # the output-stationary engine (rtl/matrix_engine_os.v) at the same shapes
           "npu-tiny -dataflow=os", "npu-tiny -array=6x3 -dataflow=os",
           "npu-tiny -array=8x8 -dataflow=os",
           # two weight banks (rtl/systolic_array.v WB = 2): a lone gemm is one pass, its
           # cycles those of one bank; convs are rtl_tests/test_matrix_unit.py's
           "npu-tiny -weight-buffers=2", "npu-tiny -array=6x3 -weight-buffers=2"]


@pytest.mark.parametrize("target", TARGETS)
def test_matrix_engine_matches_model(target):
    run_unit("matrix", target)
