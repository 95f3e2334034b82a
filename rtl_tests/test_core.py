"""pytest entry: whole programs on the RTL core (rtl/npu_core.v) vs npusim.simulate, on npu-tiny.

Each program runs in its own simulator process; the agreement rows (per instruction and per
program) land in sim_build/rtl_tests/core-npu-tiny/agreement/."""

import pandas as pd
import pytest

from rtl_tests.tb.core_programs import PROGRAMS
from rtl_tests.tb.core_runner import core_build_dir, run_core

TARGET = "npu-tiny"
# npu-tiny with a one-entry queue (dispatch stalls behind every busy unit), a deeper vector
# pipeline and other DMA costs: the same RTL source, other parameters
VARIANT = "npu-tiny -queue-depth=1 -vector-pipeline=3 -dma-setup=1 -dram-latency=5"
CASES = [(TARGET, p) for p in PROGRAMS] + [(VARIANT, "tiny_double_buffered")]


@pytest.mark.parametrize("target,program", CASES)
def test_program_matches_model(target, program):
    agreement = core_build_dir(target) / "agreement"
    run_core("run_program", target, program=program, agreement=agreement)
    mine = pd.read_csv(agreement / f"{program}.program.csv").iloc[0].to_dict()
    assert (mine["diff"], mine["trace_mismatches"], mine["dram_bytes_differing"]) == (0, 0, 0), \
        mine


def test_checker_reports_first_divergence():
    run_core("checker_reports_first_divergence", TARGET)


def test_faults_stop_the_core_where_the_model_faults():
    run_core("faults_stop_the_core_where_the_model_faults", TARGET)
