"""pytest entry: the vector unit RTL vs npusim (cocotb on Icarus), at several lane/pipeline sizes."""

import pytest

from rtl_tests.runner import run_unit

# the tiny tag; 5 lanes (not a power of two) with no pipeline; 8 lanes with the edge tag's P=4.
# (16+ lanes simulate slowly in Icarus: the memory lanes cost grows quadratically; linted only.)
TARGETS = ["npu-tiny", "npu-tiny -vector-lanes=5 -vector-pipeline=0",
           "npu-tiny -vector-lanes=8 -vector-pipeline=4"]


@pytest.mark.parametrize("target", TARGETS)
def test_vector_unit_matches_model(target):
    run_unit("vector", target)
