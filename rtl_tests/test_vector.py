"""pytest entry: the vector unit RTL vs npusim (cocotb on Icarus)."""

from rtl_tests.runner import run_unit


def test_vector_unit_matches_model_npu_tiny():
    run_unit("vector", "npu-tiny")
