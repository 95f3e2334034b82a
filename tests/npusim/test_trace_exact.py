"""Exact (unit, instruction, start, end) traces on tiny npu-tiny programs, numbers worked by hand."""

from isa import instruction as I
from npusim.simulate import simulate


def rows(res):
    return [(r.unit, r.mnemonic, r.start, r.end) for r in res.trace.itertuples()]


def test_single_load_is_setup_plus_latency_plus_beats():
    # npu-tiny: dma-setup 2, dram-latency 10, dram-bw 4 B/cycle -> 16 bytes = 4 beats.
    # Dispatch occupies cycle 0; dma0 starts at 1 and is busy 2 + 10 + 4 = 16 cycles.
    res = simulate([I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4)],
                   "npu-tiny")
    assert rows(res) == [("dma0", "load", 1, 17)]
    assert res.cycles == 17
    assert res.units["core0.dma0"]["busy"] == 16
    assert res.units["core0.dma0"]["idle"] == 1
    assert res.dram_bytes == {"read": 16, "write": 0}
