"""Simulator speed: a long double-buffered conv-layer loop in functional and timing-only modes.

    python experiments/bench_sim_speed.py [--instructions 100000] [--target npu-edge] [--profile]
    python experiments/bench_sim_speed.py --baseline a40910b [--repeats 3]

Prints, per mode: instructions, simulated cycles, host seconds, instructions/s, cycles/s, the
timing-only speed-up over functional simulation, and what the race check (npusim.race, on by
default in functional mode) costs: each mode runs with races="error" and races="off" side by
side. --profile prints the top cProfile entries.

--baseline REV runs the same workloads (the conv loop, ResNet-18 and ResNet-50) on this tree
and on revision REV (a `git worktree` in a temporary directory, simulated in a subprocess
with PYTHONPATH pointing at it) side by side: experiments/bench_baseline.py.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time

import numpy as np

from isa import instruction as I
from isa.target import Target
from npusim.memory import Dram
from npusim.simulate import simulate

H, W, CIN, COUT = 8, 8, 16, 16               # one conv tile: 8x8x16 -> 8x8x16, 3x3, pad 1
TILE_IN, TILE_OUT = H * W * CIN, H * W * COUT
IN_FULL, IN_FREE, ACC_FULL, ACC_FREE, OUT_FULL, OUT_FREE = range(6)
X_DRAM, Y_DRAM = 1 << 20, 1 << 24            # per-tile inputs / outputs cycle through 64 slots
W_DRAM, RQ_DRAM, RQ_ABUF = 0, 1 << 16, 2 * TILE_OUT
SLOTS = 64


def conv_layer_program(tiles: int) -> list:
    """Setup, then per tile: load X -> conv 3x3 -> vrequant -> store Y, double-buffered."""
    prog = [I("cfg", unit="matrix", reg=r, value=v) for r, v in
            (("conv_kh", 3), ("conv_kw", 3), ("conv_pad_top", 1), ("conv_pad_left", 1),
             ("conv_pad_bottom", 1), ("conv_pad_right", 1))]
    prog += [I("load", chan=0, buf="wbuf", sram=0, dram=W_DRAM, rows=9, cols=CIN * COUT,
               stride=CIN * COUT),
             I("load", chan=0, buf="abuf", sram=RQ_ABUF, dram=RQ_DRAM, rows=1, cols=2 * COUT,
               stride=8 * COUT)]
    for t in range(tiles):
        s, later = t % 2, t >= 2
        xin, yout = X_DRAM + (t % SLOTS) * TILE_IN, Y_DRAM + (t % SLOTS) * TILE_OUT
        prog += [I("wait", unit="dma0", sem=IN_FREE)] if later else []
        prog += [I("load", chan=0, buf="ibuf", sram=s * TILE_IN, dram=xin, rows=H,
                   cols=W * CIN, stride=W * CIN),
                 I("signal", unit="dma0", sem=IN_FULL),
                 I("wait", unit="matrix", sem=IN_FULL)]
        prog += [I("wait", unit="matrix", sem=ACC_FREE)] if later else []
        prog += [I("conv", ibuf=s * TILE_IN, wbuf=0, abuf=s * TILE_OUT, in_h=H, in_w=W, cin=CIN,
                   cout=COUT),
                 I("signal", unit="matrix", sem=IN_FREE),
                 I("signal", unit="matrix", sem=ACC_FULL),
                 I("wait", unit="vector", sem=ACC_FULL)]
        prog += [I("wait", unit="vector", sem=OUT_FREE)] if later else []
        prog += [I("vrequant", dst_buf="obuf", dst=s * TILE_OUT, src0_buf="abuf",
                   src0=s * TILE_OUT, src1_buf="abuf", src1=RQ_ABUF, len=TILE_OUT,
                   channels=COUT, relu=1),
                 I("signal", unit="vector", sem=ACC_FREE),
                 I("signal", unit="vector", sem=OUT_FULL),
                 I("wait", unit="dma1", sem=OUT_FULL),
                 I("store", chan=1, buf="obuf", sram=s * TILE_OUT, dram=yout, rows=H,
                   cols=W * COUT, stride=W * COUT),
                 I("signal", unit="dma1", sem=OUT_FREE)]
    return prog + [I("halt")]


def tiles_for(instructions: int) -> int:
    per_tile = (len(conv_layer_program(3)) - len(conv_layer_program(2)))
    return max(1, (instructions - len(conv_layer_program(0))) // per_tile)


def fresh_dram(target) -> Dram:
    rng = np.random.default_rng(0)
    dram = Dram(target.derived.dram_bytes)
    dram.write(W_DRAM, rng.integers(-128, 128, 9 * CIN * COUT).astype(np.int8))
    dram.write(RQ_DRAM, np.array([[1 << 14, 20]] * COUT, np.int32))
    dram.write(X_DRAM, rng.integers(-128, 128, SLOTS * TILE_IN).astype(np.int8))
    return dram


def bench(prog, target, timing_only: bool, profile: bool, races: str):
    dram = fresh_dram(target)
    profiler = cProfile.Profile() if profile else None
    t0 = time.perf_counter()
    if profiler:
        profiler.enable()
    res = simulate(prog, target, dram=dram, timing_only=timing_only, trace=True, races=races)
    if profiler:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(15)
    return res, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instructions", type=int, default=100_000, help="program length (approx.)")
    ap.add_argument("--target", default="npu-edge")
    ap.add_argument("--profile", action="store_true", help="cProfile each mode")
    ap.add_argument("--baseline", metavar="REV",
                    help="compare with git revision REV side by side (bench_baseline.py)")
    ap.add_argument("--repeats", type=int, default=3, help="--baseline: best of N runs")
    args = ap.parse_args(argv)
    if args.baseline:
        from bench_baseline import compare
        return compare(args.baseline, args.repeats, args.instructions, args.target)
    target = Target.create(args.target)
    if target.array_cols < COUT or target.derived.dram_bytes < Y_DRAM + SLOTS * TILE_OUT:
        ap.error(f"the benchmark's conv tile needs >= {COUT} array columns and >= 32 MiB DRAM; "
                 f"{args.target} has {target.array_cols} and {target.dram_mb} MiB "
                 "(try npu-edge or npu-server)")
    t0 = time.perf_counter()
    prog = conv_layer_program(tiles_for(args.instructions))
    build_s = time.perf_counter() - t0
    print(f"program: {len(prog)} instructions ({tiles_for(args.instructions)} conv tiles), "
          f"built in {build_s:.2f} s; target {target.tag or target}")
    rows = {}
    for mode, timing_only, races in (("functional", False, "error"),
                                     ("functional, races off", False, "off"),
                                     ("timing-only", True, "off"),
                                     ("timing-only, races on", True, "error")):
        res, wall = bench(prog, target, timing_only, args.profile, races)
        rows[mode] = (res.instructions, res.cycles, wall)
    if len({cycles for _, cycles, _ in rows.values()}) != 1:
        print("ERROR: the modes' cycles differ", file=sys.stderr)
        return 1
    print(f"{'mode':<22} {'instructions':>12} {'cycles':>12} {'host s':>8} {'instr/s':>10} "
          f"{'cycles/s':>12}")
    for mode, (n, cycles, wall) in rows.items():
        print(f"{mode:<22} {n:>12} {cycles:>12} {wall:>8.2f} {n / wall:>10.0f} "
              f"{cycles / wall:>12.0f}")
    print(f"timing-only is {rows['functional'][2] / rows['timing-only'][2]:.2f}x faster than "
          "functional")
    for label, on, off in (("functional", "functional", "functional, races off"),
                           ("timing-only", "timing-only, races on", "timing-only")):
        print(f"the race check costs {rows[on][2] / rows[off][2] - 1:+.0%} in {label} mode")
    return 0


if __name__ == "__main__":
    sys.exit(main())
