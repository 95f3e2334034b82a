"""fp16 Targets end to end, and the benchmark's double-buffered conv-layer loop against numpy."""

import importlib.util
from pathlib import Path

import numpy as np

from isa import instruction as I
from isa.target import Target
from npusim.memory import Dram
from npusim.simulate import simulate

ROOT = Path(__file__).parents[2]


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_sim_speed",
                                                  ROOT / "experiments" / "bench_sim_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fp16_gemm_relu_store_round_trip():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 4)).astype(np.float16)
    w = rng.standard_normal((4, 4)).astype(np.float16)
    dram = Dram(4096)
    dram.write(0, a)
    dram.write(32, w)
    prog = [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=8),
            I("load", chan=0, buf="wbuf", sram=0, dram=32, rows=4, cols=4, stride=8),
            I("signal", unit="dma0", sem=0), I("wait", unit="matrix", sem=0),
            I("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4),
            I("signal", unit="matrix", sem=1), I("wait", unit="vector", sem=1),
            I("vrelu", dst_buf="obuf", dst=0, src0_buf="abuf", src0=0, len=16),
            I("signal", unit="vector", sem=2), I("wait", unit="dma0", sem=2),
            I("store", chan=0, buf="obuf", sram=0, dram=128, rows=4, cols=4, stride=8)]
    res = simulate(prog, "npu-tiny -dtype=fp16", dram=dram)
    expected = np.maximum(a.astype(np.float32) @ w.astype(np.float32), 0).astype(np.float16)
    assert np.array_equal(dram.read(128, (4, 4), np.float16), expected)
    # fp16 elements are 2 bytes: each 4x4 load moves 32 bytes = 8 beats at 4 B/cycle
    assert res.dram_bytes == {"read": 64, "write": 32}
    assert res.trace.loc[0, "end"] - res.trace.loc[0, "start"] == 2 + 10 + 8


def test_benchmark_conv_loop_is_bit_exact_and_times_the_same_without_data():
    bench = load_bench()
    target = Target.create("npu-edge")
    tiles = 5
    prog = bench.conv_layer_program(tiles)
    dram = bench.fresh_dram(target)
    x = dram.read(bench.X_DRAM, (tiles, 8, 8, 16), np.int8)
    w = dram.read(bench.W_DRAM, (3, 3, 16, 16), np.int8)
    res = simulate(prog, target, dram=dram)
    fast = simulate(prog, target, timing_only=True)
    assert fast.cycles == res.cycles
    assert res.macs == tiles * 8 * 8 * 9 * 16 * 16
    for t in range(tiles):
        xp = np.pad(x[t].astype(np.int64), ((1, 1), (1, 1), (0, 0)))
        acc = sum(np.einsum("hwc,co->hwo", xp[i:i + 8, j:j + 8], w[i, j].astype(np.int64))
                  for i in range(3) for j in range(3))
        # table: mult 2^14, shift 20, zp 0, relu
        y = np.clip(np.maximum((acc * (1 << 14) + (1 << 19)) >> 20, 0), -128, 127)
        got = dram.read(bench.Y_DRAM + t * 1024, (8, 8, 16), np.int8)
        assert np.array_equal(got, y), f"tile {t}"
    # double buffering keeps the array busy: from the second tile on, the only gap between
    # convs is the matrix unit's own 4 sync cycles (2 signals, 2 waits that find tokens ready)
    convs = res.trace[res.trace.mnemonic == "conv"]
    assert (convs.start.values[2:] - convs.end.values[1:-1] == 4).all()
