"""The per-layer partition (npusim.flow.layers) on tiny npu-tiny programs, numbers worked by hand.

npu-tiny: 4x4 array, 4 lanes, vector pipeline 2, dma-setup 2, dram-latency 10, dram-bw 4 B/cycle,
1 DMA engine. Dispatch takes cycle t..t+1 and the unit may start at t+1 (tests/npusim/
test_trace_exact.py works out the traces these programs give).
"""

from types import SimpleNamespace

import numpy as np

from isa import instruction as I
from npusim.flow.layers import CAUSES, LayerTable, bound, share
from npusim.simulate import simulate


def load(chan=0, buf="ibuf", rows=4, cols=4):
    return I("load", chan=chan, buf=buf, sram=0, dram=0, rows=rows, cols=cols, stride=cols)


def artifact(names, layer_of):
    return SimpleNamespace(layers=[{"name": n, "kind": "test", "macs": 0, "roofline_cycles": 0.0}
                                   for n in names], layer_of=layer_of)


def causes(row, **nonzero):
    return {**dict.fromkeys(CAUSES, 0), **nonzero}


def test_three_layers_partition_the_run_by_unit_priority():
    # L0 = [0] load (dma0 1..17), [1] signal (dma0 17..18); L1 = [2] vrelu len=16 (vector
    # 3..9: 2 + 16/4); L2 = [3] wait (matrix 4..19, 14 blocked), [4] gemm (19..34), [5] halt.
    prog = [load(), I("signal", unit="dma0", sem=0),
            I("vrelu", dst_buf="obuf", dst=0, src0_buf="obuf", src0=64, len=16),
            I("wait", unit="matrix", sem=0), I("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4),
            I("halt")]
    res = simulate(prog, "npu-tiny")
    assert [(r.unit, r.start, r.end) for r in res.trace.itertuples()] == [
        ("dma0", 1, 17), ("vector", 3, 9), ("matrix", 4, 19), ("dispatch", 5, 6),
        ("dma0", 17, 18), ("matrix", 19, 34)]
    table = LayerTable(artifact(["L0", "L1", "L2"], [[[0, 0], [2, 1], [3, 2]]]), res)
    rows = table.rows()
    # [0,1) nothing runs: idle, to the next layer to start (L0); [1,3) dma L0; [3,9) the
    # vector beats the DMA: L1; [9,18) dma L0 (load, then signal); [18,19) the wait's own
    # cycle on the matrix, [19,34) gemm: L2. The blocked wait never wins: the DMA runs then.
    assert [r["cycles"] for r in rows] == [12, 6, 16] and res.cycles == 34
    assert rows[0]["cycles_by_cause"] == causes(rows[0], dma=11, idle=1)
    assert rows[1]["cycles_by_cause"] == causes(rows[1], compute=6)
    assert rows[2]["cycles_by_cause"] == causes(rows[2], compute=16)
    assert [(r["start"], r["end"]) for r in rows] == [(1, 18), (3, 9), (4, 34)]
    # L0's [1,18): L1 or L2 in flight over [3,18); L1's [3,9): the load throughout; L2's
    # [4,34): the load and signal until 18
    assert [r["overlap_cycles"] for r in rows] == [15, 6, 14]
    assert rows[2]["stalls"] == {"token": 14, "dram": 0, "queue": 0, "barrier": 0}
    assert rows[2]["stalls_by_unit"]["matrix"]["token"] == 14
    assert rows[0]["stalls"] == dict.fromkeys(("token", "dram", "queue", "barrier"), 0)
    assert [tuple(s) for s in table.spans] == [(0, 0, 3, 0), (0, 3, 9, 1), (0, 9, 18, 0),
                                              (0, 18, 34, 2)]


def test_a_core_waiting_for_the_dram_port_gives_its_layer_dram_cycles():
    # Both cores load 128 bytes in interleaved 16-beat bursts: core0 1..61 (16 cycles waited),
    # core1 1..77 (32 waited; tests/npusim/test_trace_exact.py).
    prog = [load(rows=8, cols=16)]
    res = simulate([prog, prog], "npu-tiny -num-cores=2")
    rows = LayerTable(artifact(["c0", "c1"], [[[0, 0]], [[0, 1]]]), res).rows()
    # Port waits are put first by convention. core0: idle [0,1), dram [1,17), dma [17,61),
    # idle [61,77) (after its last layer); core1: idle [0,1), dram [1,33), dma [33,77). Each
    # layer's share is its core-cycles / 2: c0 (16 + 44 + 17) / 2 = 38.5, c1 (32 + 44 + 1) / 2
    # = 38.5, rounded by largest remainder (the tie to the first) so the rows sum to 77.
    assert [r["cycles"] for r in rows] == [39, 38] and res.cycles == 77
    assert rows[0]["cycles_by_cause"] == causes(rows[0], dram=8, dma=22, idle=9)
    assert rows[1]["cycles_by_cause"] == causes(rows[1], dram=16, dma=22)
    assert rows[1]["stalls"]["dram"] == 32 and rows[1]["stalls_by_unit"]["dma"]["dram"] == 32
    assert [r["overlap_cycles"] for r in rows] == [60, 60]


def test_a_core_waiting_at_a_global_barrier_gives_its_layer_barrier_cycles():
    # core1 arrives at gbarrier at 1 and waits 16 cycles for core0's load (1..17).
    core0 = [load(), I("gbarrier", id=3), I("nop")]
    core1 = [I("nop"), I("gbarrier", id=3), I("halt")]
    res = simulate([core0, core1], "npu-tiny -num-cores=2")
    rows = LayerTable(artifact(["c0", "c1"], [[[0, 0]], [[0, 1]]]), res).rows()
    # core0: dma 16, idle 3 (dispatch only, the gbarrier's own cycle, nop); core1: barrier
    # 16, idle 3 (nop, the gbarrier's cycle, halt): 9.5 each, rounded to 10 + 9
    assert [r["cycles"] for r in rows] == [10, 9] and res.cycles == 19
    assert rows[0]["cycles_by_cause"] == causes(rows[0], dma=8, idle=2)
    assert rows[1]["cycles_by_cause"] == causes(rows[1], barrier=8, idle=1)
    assert rows[1]["stalls"]["barrier"] == 16 and rows[1]["stalls_by_unit"]["dispatch"] == {
        "token": 0, "dram": 0, "queue": 0, "barrier": 16}


def test_the_trace_records_each_stall_by_cause():
    prog = [load(), I("signal", unit="dma0", sem=0), I("wait", unit="matrix", sem=0),
            I("barrier")] + [I("vrelu", dst_buf="obuf", dst=0, src0_buf="ibuf", src0=0,
                                len=4)] * 8
    res = simulate(prog, "npu-tiny")
    df = res.trace.set_index("index")
    assert df.loc[2, ["stall_token", "stall_dram", "stall_barrier", "stall"]].tolist() == \
        [15, 0, 0, 15]
    assert df.loc[3, ["stall_barrier", "stall"]].tolist() == [16, 16]  # drains at 19
    # after the barrier (19..20) vrelu i runs 21+3i..; its queue of 4 is full for the 5th
    assert df["stall_queue"].sum() == res.units["core0.dispatch"]["stall_queue"] > 0
    two = simulate([load(0, "ibuf", rows=8, cols=16), load(1, "wbuf", rows=8, cols=16)],
                   "npu-tiny -dma-engines=2").trace
    assert two["stall_dram"].tolist() == [16, 31] and two["stall"].tolist() == [16, 31]


def test_share_keeps_every_sum():
    acc = np.array([[3, 1, 0], [1, 0, 1], [0, 0, 3]])  # 9 core-cycles of 3 cores
    out = share(acc, 3)
    assert out.sum() == 3 and out.tolist() == [[1, 0, 0], [1, 0, 0], [0, 0, 1]]
    assert share(acc, 1) is acc


def test_bound_labels():
    quiet = {"token": 0, "dram": 0, "queue": 0, "barrier": 0}
    # near a bound: the larger roofline term names it
    assert bound(150, 100.0, 40.0, quiet, {"compute": 10}) == "compute"
    assert bound(150, 40.0, 100.0, quiet, {"compute": 140}) == "memory"
    # far from both (> 2x the larger term): busy units -> compute, port waits -> memory,
    # token/barrier/queue waits -> latency
    far = 1000
    assert bound(far, 100.0, 40.0, quiet, {"compute": 600}) == "compute"
    assert bound(far, 100.0, 40.0, {**quiet, "dram": 900, "token": 100},
                 {"compute": 100}) == "memory"
    assert bound(far, 100.0, 40.0, {**quiet, "token": 700, "barrier": 300, "dram": 50},
                 {"compute": 100}) == "latency"
