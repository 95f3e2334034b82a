"""experiments/rtl_area.py's Yosys stat parsing and synthesis, and npusim.hw.area: the CSV
lookup the DSE uses."""

import shutil

import pandas as pd
import pytest

from experiments.rtl_agreement import summarize
from experiments.rtl_area import parse_stat, save, synthesize
from npusim.hw.area import core_area, rtl_area

STAT = """
=== systolic_pe ===
   Number of cells:                712
     $_AND_                         48
=== design hierarchy ===
   matrix_engine                     1
     systolic_pe                    16
   Number of wires:              12699
   Number of cells:              14446
     $_AND_                        918
     $_DFF_P_                      857
     $_XOR_                       3361
   Estimated number of transistors:     115100+
"""


def test_parse_stat_takes_the_hierarchy_totals():
    assert parse_stat(STAT) == {"cells": 14446, "transistors": 115100, "cell_AND": 918,
                                "cell_DFF_P": 857, "cell_XOR": 3361}


def _table(tmp_path):
    rows = pd.DataFrame([
        {"unit": "matrix", "config": "R=4 C=4", "target": "t", "R": 4, "C": 4, "cells": 100},
        {"unit": "matrix", "config": "R=8 C=8", "target": "t", "R": 8, "C": 8, "cells": 400},
        {"unit": "vector", "config": "L=4 P=2", "target": "t", "L": 4, "P": 2, "cells": 50},
        {"unit": "dma", "config": "BW=4 SETUP=2 PAD_LANES=16", "target": "t", "BW": 4,
         "SETUP": 2, "PAD_LANES": 16, "cells": 30}])
    csv = tmp_path / "area.csv"
    save(rows, csv)
    return csv


def test_rtl_area_looks_up_exact_configurations(tmp_path):
    csv = _table(tmp_path)
    assert rtl_area("matrix", csv, R=8, C=8) == 400
    assert rtl_area("vector", csv, L=4) == 50
    with pytest.raises(KeyError, match="no area for matrix R=16 C=16; synthesized: R=4 C=4; R=8 C=8"):
        rtl_area("matrix", csv, R=16, C=16)
    with pytest.raises(KeyError, match="2 matrix configurations match"):
        rtl_area("matrix", csv)


def test_core_area_counts_one_dma_per_engine(tmp_path):
    csv = _table(tmp_path)
    # npu-tiny: 4x4, L=4 P=2, BW=4 S=2, one DMA engine; two engines double the DMA
    assert core_area("npu-tiny", csv) == {"matrix": 100, "vector": 50, "dma": 30, "total": 180}
    assert core_area("npu-tiny -dma-engines=2", csv)["dma"] == 60


def test_core_area_takes_the_engine_of_the_dataflow(tmp_path):
    csv = _table(tmp_path)
    save(pd.DataFrame([{"unit": "matrix_os", "config": "R=4 C=4", "target": "t", "R": 4, "C": 4,
                        "cells": 130}]), csv)
    assert core_area("npu-tiny -dataflow=os", csv)["matrix"] == 130
    assert core_area("npu-tiny", csv)["matrix"] == 100
    with pytest.raises(KeyError, match="no area for matrix_os R=8 C=8"):
        core_area("npu-tiny -array=8x8 -dataflow=os", csv)


def test_save_replaces_a_resynthesized_configuration(tmp_path):
    csv = _table(tmp_path)
    save(pd.DataFrame([{"unit": "matrix", "config": "R=4 C=4", "target": "t", "R": 4, "C": 4,
                        "cells": 111}]), csv)
    assert rtl_area("matrix", csv, R=4, C=4) == 111
    assert len(pd.read_csv(csv)) == 4


@pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys is not installed")
def test_array_area_grows_with_the_pes():
    one = synthesize("matrix", {"R": 1, "C": 1}, timeout_s=120)
    two = synthesize("matrix", {"R": 2, "C": 2}, timeout_s=120)
    assert 0 < one["cells"] < two["cells"]
    # four PEs instead of one: the PEs' flip-flops (8-bit weight, input, 32-bit sum) grow 4x
    assert two["cell_DFF_P"] - one["cell_DFF_P"] >= 3 * 40


def test_agreement_summary_counts_mismatches_per_class():
    rows = pd.DataFrame([
        {"unit": "vector", "target": "a", "class": "vector", "mnemonic": "vadd", "model_cycles": 5,
         "rtl_cycles": 5, "diff": 0},
        {"unit": "vector", "target": "b", "class": "vector", "mnemonic": "vshr", "model_cycles": 6,
         "rtl_cycles": 8, "diff": 2},
        {"unit": "vector", "target": "a", "class": "control", "mnemonic": "cfg", "model_cycles": 1,
         "rtl_cycles": 1, "diff": 0}])
    s = summarize(rows).set_index("class")
    assert s.loc["vector", "instructions"] == 2 and s.loc["vector", "mismatches"] == 1
    assert s.loc["vector", "max_abs_diff"] == 2 and s.loc["vector", "mnemonics"] == "vadd vshr"
    assert s.loc["vector", "targets"] == 2 and s.loc["control", "mismatches"] == 0
