"""A small DSE trial table the report tests share (the columns npusim.dse.load gives)."""

import numpy as np
import pandas as pd

ATTRIBUTES = ["array", "dram_bw", "dma_engines"]
OBJECTIVES = ["cycles", "area_mm2", "energy_pj"]


def study_frame() -> pd.DataFrame:
    """A 3x3x2 grid over array, dram_bw, dma_engines as npusim.dse.load gives it: the 32x32
    array with an 8 B/cycle DRAM is infeasible (no objective values but the area)."""
    rows = []
    for array in (8, 16, 32):
        for bw in (8, 16, 32):
            for dma in (1, 2):
                cycles = 1e6 * 16 / array * (1 + 8 / bw) / dma
                area = array * array * 0.01 + dma * 0.3
                bad = array == 32 and bw == 8
                rows.append({"target": f"npu -array={array}x{array} -dram-bw={bw} "
                                       f"-dma-engines={dma}",
                             "status": "infeasible" if bad else "ok",
                             "reason": "SRAM too small" if bad else "",
                             "array": array, "dram_bw": bw, "dma_engines": dma,
                             "cycles": np.nan if bad else cycles, "area_mm2": area,
                             "energy_pj": np.nan if bad else cycles * 0.5 + area * 1e4,
                             "wall_s": 0.1, "provenance": "test"})
    return pd.DataFrame(rows)
