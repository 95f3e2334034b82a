"""pytest entry: whole programs on the RTL core (rtl/npu_core.v) vs npusim.simulate, on npu-tiny.

One simulator process per Target runs every program (and the checker and fault tests); each
pytest test below asserts its part. The agreement rows (per instruction and per program) land
in sim_build/rtl_tests/core-<target>/agreement/ (summary: python -m rtl_tests.tb.core_summary).
"""

import pandas as pd
import pytest

from rtl_tests.tb.core_programs import PROGRAMS
from rtl_tests.tb.core_runner import core_build_dir, run_core

# One xdist worker must run this whole file, so each Target simulates once and no two workers
# rewrite one agreement folder: make test uses --dist loadfile (xdist's loadgroup mark has no
# effect under pytest 9.2, where an item can no longer rename its nodeid).

TARGET = "npu-tiny"
# npu-tiny with a one-entry queue (dispatch stalls behind every busy unit), a deeper vector
# pipeline and other DMA costs: the same RTL source, other parameters
VARIANT = "npu-tiny -queue-depth=1 -vector-pipeline=3 -dma-setup=1 -dram-latency=5"
# (target, cocotb tests, programs) of each simulator process; npu-tiny's in two halves so no
# pytest test waits long for its run
# npu-tiny's output-stationary array (rtl/matrix_unit_os.v): gemm and conv programs, the
# compiled one tiled for it
OS = "npu-tiny -dataflow=os"
LONG = ["tiny_conv", "compiled_conv_relu"]
# npu-tiny's PEs with two weight banks (rtl/systolic_array.v WB = 2): a conv's passes overlap
WB2 = "npu-tiny -weight-buffers=2"
RUNS = [(TARGET, ("run_programs", "checker_reports_first_divergence"), LONG),
        (TARGET, ("run_programs", "faults_stop_the_core_where_the_model_faults"),
         [p for p in PROGRAMS if p not in LONG]),
        (VARIANT, ("run_programs",), ["tiny_double_buffered", "tiny_gemm_requant"]),
        (OS, ("run_programs",), ["tiny_conv", "tiny_conv_strided", "tiny_gemm_requant",
                                 "tiny_double_buffered", "compiled_conv_relu"]),
        (WB2, ("run_programs",), ["tiny_conv", "tiny_conv_strided", "tiny_double_buffered",
                                  "compiled_conv_relu"])]
CASES = [(target, p) for target, _, programs in RUNS for p in programs]


@pytest.fixture(scope="module")
def outcomes():
    """outcomes(target, cocotb test, program=None) -> None if that test passed in the run that
    has it (and the program), else the failure; each run of RUNS simulates on first use."""
    cache = {}

    def get(target, test, program=None):
        for i, (t, tests, programs) in enumerate(RUNS):
            if t != target or test not in tests or (program and program not in programs):
                continue
            if i not in cache:
                agreement = core_build_dir(t) / "agreement"
                for p in programs:
                    (agreement / f"{p}.program.csv").unlink(missing_ok=True)
                cache[i] = run_core(t, testcases=tests, programs=programs, agreement=agreement)
            return cache[i].get(test, f"cocotb test {test} did not report")
        raise KeyError(f"no run of {test} ({program}) on {target}")
    return get


@pytest.mark.parametrize("target,program", CASES)
def test_program_matches_model(outcomes, target, program):
    failure = outcomes(target, "run_programs", program)
    saved = core_build_dir(target) / "agreement" / f"{program}.program.csv"
    assert saved.exists(), f"{program} did not run on {target}: {failure}"
    mine = pd.read_csv(saved).iloc[0].to_dict()
    assert (mine["diff"], mine["trace_mismatches"], mine["dram_bytes_differing"]) == (0, 0, 0), \
        mine


@pytest.mark.parametrize("test", ["checker_reports_first_divergence",
                                  "faults_stop_the_core_where_the_model_faults"])
def test_core_cocotb(outcomes, test):
    failure = outcomes(TARGET, test)
    assert failure is None, failure
