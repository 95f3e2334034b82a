"""pytest entry: the matrix engine RTL vs npusim (cocotb on Icarus)."""

from rtl_tests.runner import run_unit


def test_matrix_engine_matches_model_npu_tiny():
    run_unit("matrix", "npu-tiny")
