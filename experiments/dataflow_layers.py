"""Per-layer matrix-unit cycles of a SCALE-Sim conv topology compiled for our NPU on -dataflow=ws
and os, beside SCALE-Sim 3.0's closed forms: `python -m experiments.dataflow_layers [--dataflow
os] [--topology CSV] [--array 32x32]` (ResNet-18, os, 32x32 by default; about a minute).

Each layer (SCALE-Sim's conv format, no padding) is a one-conv model compiled on a Target with
SCALE-Sim's 64 KiB input/filter/output SRAMs and memory that never stalls (dram-bw 1024,
latency and DMA setup 0), and simulated timing-only; its matrix cycles are the sum of its
conv/gemm instructions' cycles (the trace). SCALE-Sim's closed forms (docs/timing.md):
  ws: ceil(K/R) * ceil(N/C) * (2R + C + M - 2) - 1;  os: ceil(M/R) * ceil(N/C) * (K + R + C - 2) - 1
with M ofmap pixels, N filters, K = filter h x w x channels; they reproduce its COMPUTE_REPORT
with its own ofmap size ceil((H - fh + s) / s), one more than a conv's floor((H - fh) / s) + 1
for some strided layers (ResNet-18's Conv1, Conv3_1a, ...). Our layer gets the bottom/right
zero padding that makes its ofmap SCALE-Sim's, so both count the same outputs."""

from __future__ import annotations

import argparse
import csv
from math import ceil
from pathlib import Path

import numpy as np

TOPOLOGY = Path(__file__).resolve().parents[1] / "tests/scalesim/sample/topologies/conv_nets/Resnet18.csv"
IDEAL = "-ibuf-kb=64 -wbuf-kb=64 -abuf-kb=256 -obuf-kb=64 -dram-bw=1024 -dram-latency=0 -dma-setup=0"


def closed_form(dataflow: str, M: int, K: int, N: int, R: int, C: int) -> int:
    if dataflow == "os":
        return ceil(M / R) * ceil(N / C) * (K + R + C - 2) - 1
    return ceil(K / R) * ceil(N / C) * (2 * R + C + M - 2) - 1


def scalesim_side(size: int, filt: int, stride: int) -> int:
    """SCALE-Sim's ofmap height (width) of an unpadded conv."""
    return ceil((size - filt + stride) / stride)


def layer_cycles(h, w, fh, fw, c, n, s, target: str) -> int:
    from compiler.frontend.builder import GraphBuilder
    from compiler.zoo.params import ParamGen
    from npusim import flow
    b, p = GraphBuilder("layer"), ParamGen(0)
    x = b.input("input", (1, c, h, w))
    # the padding that gives SCALE-Sim's ofmap (its ceil: one more row/column where it rounds up)
    pad_b = max(0, (scalesim_side(h, fh, s) - 1) * s + fh - h)
    pad_r = max(0, (scalesim_side(w, fw, s) - 1) * s + fw - w)
    y = b.conv2d(x, p.conv(n, c, fh), np.zeros(n), stride=s, pad=(0, 0, pad_b, pad_r),
                 name="conv")
    trace = flow.simulate(flow.compile(b.build(y), target, num_calib=1), timing_only=True,
                          trace=True).trace
    mat = trace[trace.mnemonic.isin(["conv", "gemm"])]
    return int((mat.end - mat.start).sum())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataflow", choices=("ws", "os"), default="os")
    ap.add_argument("--topology", type=Path, default=TOPOLOGY)
    ap.add_argument("--array", default="32x32")
    args = ap.parse_args(argv)
    R, C = map(int, args.array.lower().split("x"))
    target = f"npu -array={args.array} {IDEAL} -dataflow={args.dataflow}"
    print(f"target: {target}")
    ours_total = theirs_total = 0
    with open(args.topology) as f:
        rows = [r for r in csv.reader(f)][1:]
    for r in rows:
        if not r or not r[0].strip():
            continue
        name, (h, w, fh, fw, c, n, s) = r[0].strip(), map(int, r[1:8])
        M, K = scalesim_side(h, fh, s) * scalesim_side(w, fw, s), fh * fw * c
        ours, theirs = layer_cycles(h, w, fh, fw, c, n, s, target), closed_form(
            args.dataflow, M, K, n, R, C)
        ours_total, theirs_total = ours_total + ours, theirs_total + theirs
        print(f"{name:10s} M={M:6d} K={K:5d} N={n:5d}  ours {ours:9,}  SCALE-Sim {theirs:9,}"
              f"  {100 * (ours - theirs) / theirs:+6.2f}%", flush=True)
    print(f"{'total':10s} {'':26s}  ours {ours_total:9,}  SCALE-Sim {theirs_total:9,}"
          f"  {100 * (ours_total - theirs_total) / theirs_total:+6.2f}%")


if __name__ == "__main__":
    main()
