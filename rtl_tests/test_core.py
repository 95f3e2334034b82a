"""pytest entry: whole programs on the RTL core (rtl/npu_core.v) vs npusim.simulate, on npu-tiny.

Each program runs in its own simulator process; the agreement rows (per instruction and per
program) land in sim_build/rtl_tests/core-npu-tiny/agreement/."""

import pandas as pd
import pytest

from rtl_tests.tb.core_programs import PROGRAMS
from rtl_tests.tb.core_runner import core_build_dir, run_core

TARGET = "npu-tiny"
AGREEMENT = core_build_dir(TARGET) / "agreement"


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_program_matches_model(program):
    run_core("run_program", TARGET, program=program, agreement=AGREEMENT)
    mine = pd.read_csv(AGREEMENT / f"{program}.program.csv").iloc[0].to_dict()
    assert (mine["diff"], mine["trace_mismatches"], mine["dram_bytes_differing"]) == (0, 0, 0), \
        mine


def test_checker_reports_first_divergence():
    run_core("checker_reports_first_divergence", TARGET)
