"""Transformers on the NPU at full size: simulated cycles against the summed per-layer
roofline, per block (attention, MLP, LayerNorm) and for the whole model; GPT-2's decode step
against its DRAM roofline with tokens/s; the wall time of a timing-only GPT-2 prefill.

    python experiments/bench_transformers.py [--only NAME] [--skip-prefill]

Each row: cycles / summed roofline of the layers in the block (the roofline of a layer is
max(MACs / peak MACs per cycle, compulsory DRAM bytes / DRAM bytes per cycle), as `npusim run`
prints it). Blocks are the layers named l<i>.attn.* (Q/K/V, Q.K^T, Softmax, P.V, the output
projection with its residual add), l<i>.mlp.* (fc1, GELU, fc2 with its residual add) and the
LayerNorms (*ln*). Commands to reproduce one row: `npusim run bert-tiny`, `npusim run vit-tiny`,
`npusim run gpt2 --seq 128 --decode --timing-only -t npu-edge` (and -t npu-server),
`npusim run gpt2 --seq 128 --timing-only`."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

CASES = [  # (label, model, target, model parameters, functional run)
    ("bert-tiny", "bert-tiny", "npu-edge", {}, True),
    ("vit-tiny", "vit-tiny", "npu-edge", {}, True),
    ("gpt2 decode (seq 128)", "gpt2", "npu-edge", {"seq": 128, "decode": True}, False),
    ("gpt2 decode (seq 128)", "gpt2", "npu-server", {"seq": 128, "decode": True}, False),
]
BLOCKS = {"attention": re.compile(r"^l\d+\.attn\."), "mlp": re.compile(r"^l\d+\.mlp\."),
          "layernorm": re.compile(r"(^|\.)ln")}


def block_ratios(layers: list) -> dict:
    """{block: (cycles, roofline cycles)} summed over the layers each pattern names."""
    out = {}
    for block, pat in BLOCKS.items():
        rows = [x for x in layers if pat.search(x["name"])]
        if rows:
            out[block] = (sum(x["cycles"] for x in rows),
                          sum(x["roofline_cycles"] for x in rows))
    return out


def run_case(model: str, target: str, kw: dict, functional: bool) -> dict:
    from npusim import flow
    c = flow.compile(model, target, **kw)
    r = flow.simulate(c, timing_only=not functional)
    if functional:
        flow.verify(c, r)
    return r.to_json()


def npusim() -> list:
    exe = os.path.join(os.path.dirname(sys.executable), "npusim")
    return [exe] if os.path.exists(exe) else [sys.executable, "-m", "npusim"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run the cases whose label contains this")
    ap.add_argument("--skip-prefill", action="store_true",
                    help="skip the timing-only gpt2 prefill wall-time case")
    args = ap.parse_args(argv)
    from isa.target import Target
    print(f"{'case':<24} {'target':<11} {'block':<10} {'cycles':>12} {'roofline':>12} "
          f"{'ratio':>6}  notes")
    for label, model, target, kw, functional in CASES:
        if args.only and args.only not in label:
            continue
        s = run_case(model, target, kw, functional)
        for block, (cyc, roof) in block_ratios(s["layers"]).items():
            print(f"{label:<24} {target:<11} {block:<10} {cyc:>12,} {roof:>12,.0f} "
                  f"{cyc / roof:>6.3f}")
        note = ""
        if s.get("snr_db") is not None:
            note = f"bit-exact {s['bit_exact']}, SNR {s['snr_db']:.1f} dB vs onnxruntime"
        if kw.get("decode"):
            mhz = Target.create(target).freq_mhz
            note = f"{mhz * 1e6 / s['cycles']:,.0f} tokens/s at {mhz} MHz " \
                   f"(DRAM {s['dram_bytes'] / 1e6:.1f} MB per token)"
        print(f"{label:<24} {target:<11} {'model':<10} {s['cycles']:>12,} "
              f"{s['roofline_cycles']:>12,.0f} {s['roofline_ratio']:>6.3f}  {note}")
    if not args.skip_prefill and (not args.only or "prefill" in args.only):
        t0 = time.perf_counter()
        proc = subprocess.run(npusim() + ["run", "gpt2", "--seq", "128", "--timing-only",
                                          "--json"], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            print(f"gpt2 prefill failed: {proc.stderr.strip()[:300]}")
            return 1
        s = json.loads(proc.stdout)
        print(f"{'gpt2 prefill (seq 128)':<24} {'npu-edge':<11} {'model':<10} "
              f"{s['cycles']:>12,} {s['roofline_cycles']:>12,.0f} {s['roofline_ratio']:>6.3f}  "
              f"timing-only `npusim run gpt2 --seq 128 --timing-only`: {wall:.1f} s wall "
              f"(compile {s['compile_s']:.1f} s, simulation {s['sim_wall_s']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
