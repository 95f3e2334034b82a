"""Exact (unit, instruction, start, end) traces on tiny npu-tiny programs, numbers worked by hand.

npu-tiny: 4x4 array, 4 lanes, vector pipeline 2, dma-setup 2, dram-latency 10, dram-bw 4 B/cycle,
queue depth 4, 1 DMA engine. Dispatch takes cycle t..t+1 and the unit may start at t+1.
"""

from isa import instruction as I
from npusim.simulate import simulate


def rows(res):
    return [(r.unit, r.mnemonic, r.start, r.end) for r in res.trace.itertuples()]


def load(chan=0, buf="ibuf", rows=4, cols=4, dram=0, sram=0):
    return I("load", chan=chan, buf=buf, sram=sram, dram=dram, rows=rows, cols=cols, stride=cols)


def test_single_load_is_setup_plus_latency_plus_beats():
    # 16 bytes = 4 beats; dma0 starts at 1 and is busy 2 + 10 + 4 = 16 cycles.
    res = simulate([load()], "npu-tiny")
    assert rows(res) == [("dma0", "load", 1, 17)]
    assert res.cycles == 17
    assert res.units["core0.dma0"]["busy"] == 16
    assert res.units["core0.dma0"]["idle"] == 1
    assert res.units["core0.dispatch"]["busy"] == 1
    assert res.dram_bytes == {"read": 16, "write": 0}


def test_signal_wait_hands_off_from_dma_to_matrix():
    prog = [load(), I("signal", unit="dma0", sem=0), I("wait", unit="matrix", sem=0),
            I("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4), I("halt")]
    res = simulate(prog, "npu-tiny")
    # signal runs 17..18 and makes sem0 = 1 at 18; the wait (started at 3) takes cycle 18..19;
    # gemm = k + m + R + C - 1 = 4 + 4 + 4 + 4 - 1 = 15 cycles: 19..34.
    assert rows(res) == [("dma0", "load", 1, 17), ("matrix", "wait", 3, 19),
                         ("dispatch", "halt", 4, 5), ("dma0", "signal", 17, 18),
                         ("matrix", "gemm", 19, 34)]
    assert res.cycles == 34
    m = res.units["core0.matrix"]
    assert (m["busy"], m["stall_token"], m["idle"]) == (1 + 15, 15, 34 - 16 - 15)
    assert res.trace.loc[res.trace.mnemonic == "wait", "stall"].item() == 15


def test_full_queue_stalls_dispatch():
    # vrelu len=4: P + ceil(4/4) = 3 cycles; instruction i runs 1+3i .. 4+3i.
    # Queue depth 4: instruction 7 is dispatched 7..8 but its queue holds 3,4,5,6 until
    # instruction 3 starts at 10, so dispatch stalls 2 cycles and halt takes 10..11.
    prog = [I("vrelu", dst_buf="obuf", dst=0, src0_buf="ibuf", src0=0, len=4)] * 8 + [I("halt")]
    res = simulate(prog, "npu-tiny")
    assert rows(res)[-1] == ("vector", "vrelu", 22, 25)
    assert [r[2:] for r in rows(res) if r[0] == "vector"] == [(1 + 3 * i, 4 + 3 * i)
                                                              for i in range(8)]
    assert ("dispatch", "halt", 10, 11) in rows(res)
    assert res.units["core0.dispatch"]["stall_queue"] == 2
    assert res.units["core0.dispatch"]["busy"] == 9
    assert res.cycles == 25
    assert res.trace.loc[res.trace["index"] == 7, "dispatched"].item() == 7


def test_two_channels_interleave_bursts_on_the_shared_dram_port():
    # Two 128-byte loads = 32 beats each = two 16-beat bursts each. chan0 holds the port
    # 3..19, chan1 (setup 2..4) waits until 19 and bursts 19..35, chan0 35..51, chan1 51..67;
    # each ends 10 cycles of latency after its last burst.
    prog = [load(0, "ibuf", rows=8, cols=16), load(1, "wbuf", rows=8, cols=16)]
    res = simulate(prog, "npu-tiny -dma-engines=2")
    assert rows(res) == [("dma0", "load", 1, 61), ("dma1", "load", 2, 77)]
    d0, d1 = res.units["core0.dma0"], res.units["core0.dma1"]
    assert (d0["busy"], d0["stall_dram"]) == (2 + 32 + 10, 16)
    assert (d1["busy"], d1["stall_dram"]) == (2 + 32 + 10, 15 + 16)
    assert res.dram_bytes["read"] == 256


def test_barrier_waits_for_the_core_to_drain():
    res = simulate([load(), I("barrier"), I("nop")], "npu-tiny")
    assert rows(res) == [("dma0", "load", 1, 17), ("dispatch", "barrier", 1, 18),
                         ("dispatch", "nop", 18, 19)]
    assert res.units["core0.dispatch"]["stall_barrier"] == 16
    assert res.cycles == 19


def test_global_barrier_releases_both_cores_when_the_last_arrives():
    core0 = [load(), I("gbarrier", id=3), I("nop")]
    core1 = [I("nop"), I("gbarrier", id=3), I("halt")]
    res = simulate([core0, core1], "npu-tiny -num-cores=2")
    # core1 arrives at 1 and waits; core0 drains its load at 17; both pass at 17..18.
    assert [(r.core, r.unit, r.mnemonic, r.start, r.end) for r in res.trace.itertuples()] == [
        (1, "dispatch", "nop", 0, 1), (0, "dma0", "load", 1, 17),
        (0, "dispatch", "gbarrier", 1, 18), (1, "dispatch", "gbarrier", 1, 18),
        (0, "dispatch", "nop", 18, 19), (1, "dispatch", "halt", 18, 19)]
    assert res.units["core1.dispatch"]["stall_barrier"] == 16
    assert res.cycles == 19


def test_cores_contend_for_dram():
    # The same 128-byte load on both cores: core0 wins the tie at 3 (it was built first).
    prog = [load(0, "ibuf", rows=8, cols=16)]
    res = simulate([prog, prog], "npu-tiny -num-cores=2")
    assert [(r.core, r.start, r.end) for r in res.trace.itertuples()] == [(0, 1, 61), (1, 1, 77)]
    assert res.units["core1.dma0"]["stall_dram"] == 16 + 16
    alone = simulate([prog], "npu-tiny -num-cores=2")
    assert alone.cycles == 1 + 2 + 32 + 10 < res.cycles


def test_three_channels_queue_for_the_port_first_come_first_served():
    # dma0 (64 beats) holds the port from 3; dma1 (4 beats) asks at 4, dma2 (16 beats) at 5.
    # dma0 hands over at the end of its first burst (19); then dma1 19..23, dma2 23..39, and
    # dma0 takes its remaining 48 beats 39..87; each ends 10 cycles after its last beat.
    prog = [load(0, "ibuf", rows=16, cols=16), load(1, "wbuf", rows=4, cols=4),
            load(2, "obuf", rows=4, cols=16)]
    res = simulate(prog, "npu-tiny -dma-engines=3")
    assert rows(res) == [("dma0", "load", 1, 97), ("dma1", "load", 2, 33), ("dma2", "load", 3, 49)]
    assert [res.units[f"core0.dma{c}"]["stall_dram"] for c in range(3)] == [20, 15, 18]


def test_a_late_request_waits_for_the_burst_in_progress():
    # dma0 streams 64 beats from 3 with nobody waiting; dma1 asks at 24, in the second burst
    # (19..35): dma0 stops at 35, dma1 runs 35..39, dma0 finishes its 32 beats 39..71.
    prog = [load(0, "ibuf", rows=16, cols=16)] + [I("nop")] * 20 + [load(1, "wbuf")]
    res = simulate(prog, "npu-tiny -dma-engines=2")
    assert [r for r in rows(res) if r[0] != "dispatch"] == [("dma0", "load", 1, 81),
                                                            ("dma1", "load", 22, 49)]
    assert res.units["core0.dma0"]["stall_dram"] == 4
    assert res.units["core0.dma1"]["stall_dram"] == 11
