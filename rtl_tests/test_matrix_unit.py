"""pytest entry: the weight-stationary matrix unit RTL (rtl/matrix_unit.v: gemm, cfg, conv) vs
npusim (cocotb on Icarus), with one weight bank per PE and with two (-weight-buffers=2)."""

import pytest

from rtl_tests.runner import run_unit

# npu-tiny's 4x4, a non-square array (rows/columns mix-ups) and 8x8 with two weight banks;
# npu-tiny with one (the same testbench on today's unit)
TARGETS = ["npu-tiny -weight-buffers=2", "npu-tiny -array=6x3 -weight-buffers=2",
           "npu-tiny -array=8x8 -weight-buffers=2", "npu-tiny"]


@pytest.mark.parametrize("target", TARGETS)
def test_matrix_unit_matches_model(target):
    run_unit("matrix_unit", target)


@pytest.mark.parametrize("target", ["npu-tiny -weight-buffers=2", "npu-edge -weight-buffers=2",
                                    "npu-server -weight-buffers=2",
                                    "npu-tiny -array=1x1 -weight-buffers=2"])
def test_matrix_unit_with_two_banks_lints_clean(target):
    """verilator -Wall on the whole unit with WB = 2 at each tag's array (and 1x1: one PE, a
    one-cycle skew), as test_lint does for WB = 1."""
    from npusim.hw.rtl_params import AREA_SOURCES, unit_params
    from rtl_tests.test_lint import lint
    params = unit_params("matrix_unit", target)
    assert params["WB"] == 2
    result = lint("matrix_unit", AREA_SOURCES["matrix_unit"], params)
    assert result.returncode == 0, f"verilator -Wall on matrix_unit ({target}):\n{result.stderr}"
