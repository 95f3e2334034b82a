"""The zero-fill bound of padded loads in the SimPy DMA unit: exact traces on npu-tiny.

npu-tiny: dma-setup 2, dram-latency 10, dram-bw 4 B/cycle, dma-fill-lanes 16. A load's data path
takes 2 + 10 + beats cycles; its zero fill walks the whole padded tile, 16 elements a cycle, from
the load's first cycle and needs no DRAM port; the load ends when both are done.
"""

import numpy as np

from isa import instruction as I
from npusim.memory import Dram
from npusim.simulate import simulate


def rows(res):
    return [(r.unit, r.mnemonic, r.start, r.end, r.stall) for r in res.trace.itertuples()]


def load(chan=0, buf="ibuf", rows=1, cols=1, pad=0, dram=0, sram=0):
    return I("load", chan=chan, buf=buf, sram=sram, dram=dram, rows=rows, cols=cols, stride=cols,
             pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad)


def test_heavy_padding_takes_the_fill_cycles_and_writes_zeros():
    # 1x1 with 7 pads each side: 15 * 15 = 225 elements, ceil(225 / 16) = 15 > 2 + 10 + 1 = 13
    # the store after it copies the tile back out (it waits for the load: one channel, in order)
    dram = Dram(4096)
    dram.write(0, np.arange(1, 65, dtype=np.uint8))
    dram.write(1000, np.full(225, 99, dtype=np.uint8))  # stale bytes where the tile lands
    prog = [load(pad=7, dram=5),
            I("store", chan=0, buf="ibuf", sram=0, dram=1000, rows=15, cols=15, stride=15)]
    res = simulate(prog, "npu-tiny", dram=dram)
    assert rows(res)[0] == ("dma0", "load", 1, 16, 0)
    expected = np.zeros((15, 15), dtype=np.int8)
    expected[7, 7] = 6
    np.testing.assert_array_equal(dram.read(1000, (15, 15), np.int8), expected)


def test_padding_within_the_transfer_is_free():
    # 1x1 with 1 pad each side: 9 elements, 1 fill cycle, hidden by the 13 of the data path
    res = simulate([load(pad=1)], "npu-tiny")
    assert rows(res) == [("dma0", "load", 1, 14, 0)]


def test_port_wait_delays_the_data_path_and_the_fill_hides_part_of_it():
    # dma0: 128 bytes (32 beats) holds the port 3..19 (its first burst). dma1 starts at 2, asks
    # for the port at 4, gets it at 19, beat 19..20, latency to 30; its fill ended at 2 + 15 = 17.
    # Uncontended it takes 15 (the fill), so 13 of the 15 cycles waited count as stall.
    prog = [load(0, "ibuf", rows=8, cols=16), load(1, "wbuf", pad=7)]
    res = simulate(prog, "npu-tiny -dma-engines=2")
    assert rows(res)[1] == ("dma1", "load", 2, 30, 13)
    d1 = res.units["core0.dma1"]
    assert (d1["busy"], d1["stall_dram"]) == (15, 13)


def test_a_port_wait_shorter_than_the_fill_margin_is_no_stall():
    # dma0: 8 bytes (2 beats) holds the port 3..5; dma1 asks at 4, beat 5..6, data ends at 16;
    # the fill ends at 2 + 15 = 17, so the load ends there, exactly as uncontended.
    prog = [load(0, "ibuf", rows=2, cols=4), load(1, "wbuf", pad=7)]
    res = simulate(prog, "npu-tiny -dma-engines=2")
    assert rows(res)[1] == ("dma1", "load", 2, 17, 0)
    assert res.units["core0.dma1"]["stall_dram"] == 0


def test_timing_only_mode_gives_the_same_cycles():
    prog = [load(0, "ibuf", rows=8, cols=16), load(1, "wbuf", pad=7), load(0, "obuf", pad=5)]
    full = simulate(prog, "npu-tiny -dma-engines=2")
    fast = simulate(prog, "npu-tiny -dma-engines=2", timing_only=True)
    assert rows(full) == rows(fast)
    assert full.cycles == fast.cycles
