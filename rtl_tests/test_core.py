"""pytest entry: whole programs on the RTL core (rtl/npu_core.v) vs npusim.simulate, on npu-tiny.

One simulator process per Target runs every program (and the checker and fault tests); each
pytest test below asserts its part. The agreement rows (per instruction and per program) land
in sim_build/rtl_tests/core-<target>/agreement/ (summary: python -m rtl_tests.tb.core_summary).
"""

import pandas as pd
import pytest

from rtl_tests.tb.core_programs import PROGRAMS
from rtl_tests.tb.core_runner import core_build_dir, run_core

# all in one xdist worker (make test uses --dist loadgroup), so each Target simulates once
pytestmark = pytest.mark.xdist_group("rtl_core")

TARGET = "npu-tiny"
# npu-tiny with a one-entry queue (dispatch stalls behind every busy unit), a deeper vector
# pipeline and other DMA costs: the same RTL source, other parameters
VARIANT = "npu-tiny -queue-depth=1 -vector-pipeline=3 -dma-setup=1 -dram-latency=5"
RUNS = {TARGET: list(PROGRAMS), VARIANT: ["tiny_double_buffered", "tiny_gemm_requant"]}
CASES = [(t, p) for t, programs in RUNS.items() for p in programs]


@pytest.fixture(scope="module")
def outcomes():
    """{target: {cocotb test: None or failure}}, each Target simulated on first use."""
    cache = {}

    def get(target):
        if target not in cache:
            agreement = core_build_dir(target) / "agreement"
            for old in agreement.glob("*.csv"):
                old.unlink()
            cache[target] = run_core(target, testcases=None if target == TARGET else
                                     ["run_programs"], programs=RUNS[target], agreement=agreement)
        return cache[target]
    return get


@pytest.mark.parametrize("target,program", CASES)
def test_program_matches_model(outcomes, target, program):
    result = outcomes(target)
    saved = core_build_dir(target) / "agreement" / f"{program}.program.csv"
    assert saved.exists(), f"{program} did not run on {target}: {result.get('run_programs')}"
    mine = pd.read_csv(saved).iloc[0].to_dict()
    assert (mine["diff"], mine["trace_mismatches"], mine["dram_bytes_differing"]) == (0, 0, 0), \
        mine


@pytest.mark.parametrize("test", ["checker_reports_first_divergence",
                                  "faults_stop_the_core_where_the_model_faults"])
def test_core_cocotb(outcomes, test):
    result = outcomes(TARGET)
    assert test in result, f"cocotb test {test} did not report; ran: {sorted(result)}"
    assert result[test] is None, result[test]
