"""The whole-program checker and the core's parameters, without a simulator."""

import numpy as np
import pandas as pd
import pytest

from isa.target import TargetError
from rtl_tests.tb.core_checker import compare_dram, compare_traces
from rtl_tests.tb.core_params import core_params

MODEL = pd.DataFrame({
    "unit": ["dma0", "matrix", "dma0", "vector", "dma0", "dispatch"],
    "index": [0, 3, 1, 5, 7, 8],
    "mnemonic": ["load", "wait", "signal", "vrequant", "wait", "halt"],
    "start": [1, 4, 17, 20, 18, 9],
    "end": [17, 19, 18, 30, 32, 10],
    "dispatched": [0, 3, 1, 5, 7, 9]})
DISPATCHED = dict(zip(MODEL["index"], MODEL["dispatched"]))


def rtl_rows(model: pd.DataFrame):
    return [(r.unit, r.index, r.start, r.end) for r in model.itertuples()]


def test_equal_traces_agree_row_for_row():
    table, bad = compare_traces("p", MODEL, rtl_rows(MODEL), DISPATCHED)
    assert bad == []
    assert list(table["diff"]) == [0] * len(MODEL)
    assert list(table["index"]) == [0, 3, 8, 1, 7, 5]  # model start order


def test_first_divergence_is_the_earliest_differing_event():
    # the vrequant ends a cycle early, so the wait it releases ends early too: the wait
    # started first, but the vrequant's end is the earlier event that differs
    rows = rtl_rows(MODEL)
    rows[3] = ("vector", 5, 20, 29)
    rows[4] = ("dma0", 7, 18, 31)
    table, bad = compare_traces("p", MODEL, rows, DISPATCHED)
    assert bad == ["[5] vrequant on vector: model 20..30, RTL 20..29 (start +0, end -1)",
                   "[7] wait on dma0: model 18..32, RTL 18..31 (start +0, end -1)"]
    assert table.set_index("index").loc[5, "diff"] == -1


def test_a_late_start_sorts_by_its_start():
    rows = rtl_rows(MODEL)
    rows[1] = ("matrix", 3, 2, 19)  # the RTL starts the wait 2 cycles early
    _, bad = compare_traces("p", MODEL, rows, DISPATCHED)
    assert bad == ["[3] wait on matrix: model 4..19, RTL 2..19 (start -2, end +0)"]


def test_a_later_dispatch_is_reported_before_its_consequences():
    rows = rtl_rows(MODEL)
    rows[4] = ("dma0", 7, 19, 32)   # the wait was pushed a cycle late, so it started late
    _, bad = compare_traces("p", MODEL, rows, {**DISPATCHED, 7: 8, 8: 10})
    assert bad == ["[7] wait on dma0: model 18..32, dispatch began at 7 in the model, at 8 in "
                   "the RTL",
                   "[8] halt on dispatch: model 9..10, dispatch began at 9 in the model, at 10 "
                   "in the RTL"]


def test_missing_and_extra_rows_are_reported():
    rows = rtl_rows(MODEL)[1:] + [("vector", 9, 40, 41)]
    _, bad = compare_traces("p", MODEL, rows, DISPATCHED)
    assert bad == ["[0] load on dma0: model 1..17, never ran in the RTL",
                   "[9] on vector: RTL 40..41, not in the model"]


def test_dram_compare_counts_and_names_the_first_byte():
    model = np.zeros(64, np.uint8)
    model[5], model[9] = 7, 200
    rtl = model[:32].copy()
    assert compare_dram(model[:32], rtl) == (0, None)
    rtl[9], rtl[11] = 1, 3
    assert compare_dram(model[:32], rtl) == (2, "DRAM byte 0x9: model 200, RTL 1 (2 bytes differ)")


def test_dram_compare_refuses_a_model_write_past_the_rtl_dram():
    model = np.zeros(64, np.uint8)
    model[40] = 1
    count, text = compare_dram(model, np.zeros(32, np.uint8))
    assert count == 1 and text.startswith("the model wrote DRAM byte 0x28, past the RTL's 32 bytes")


def test_core_params_come_from_the_target():
    p = core_params("npu-tiny -queue-depth=2 -semaphores=4 -array=4x2")
    assert (p["R"], p["C"], p["Q"], p["NSEM"], p["L"], p["BW"], p["LAT"]) == (4, 2, 2, 4, 4, 4, 10)


@pytest.mark.parametrize("target,words", [
    ("npu-edge", "dma-engines=2"), ("npu-tiny -num-cores=2", "num-cores=2"),
    ("npu-tiny -dtype=fp16", "int8 datapath only")])
def test_core_params_refuse_what_the_core_lacks(target, words):
    with pytest.raises(TargetError, match=words):
        core_params(target)
