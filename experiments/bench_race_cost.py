"""What the race check (npusim.race) costs on a compiled model: functional runs with races on and off.

    python experiments/bench_race_cost.py [--model resnet18] [--target npu-edge] [--repeat 3]
                                          [--resolution N]

Compiles once, then alternates races="error" and races="off" runs of the same program on the
same DRAM image and input (`--repeat` times each), and prints the fastest of each, the cost in
percent, and the cycles (equal: the check only observes).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from compiler.backends import build
from isa.target import Target
from npusim.memory import Dram
from npusim.simulate import simulate


def loaded_dram(compiled, seed: int = 0) -> Dram:
    """The artifact's DRAM image plus a standard-normal input, as the host would stage it."""
    art = compiled.artifact
    rng = np.random.default_rng(seed)
    g = compiled.float_graph
    feeds = {v: rng.standard_normal(g.type_of(v).shape).astype(np.float32) for v in g.inputs}
    dev = compiled.module.quantize_inputs(feeds) if compiled.quantized else \
        {e.name: feeds[e.model_name] for e in art.inputs}
    dram = Dram(Target.create(art.target).derived.dram_bytes)
    art.dram_image(dram)
    for e in art.inputs:
        dram.write(e.dram, np.asarray(dev[e.name]).astype(e.dtype).reshape(e.shape))
    return dram


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--target", default="npu-edge")
    ap.add_argument("--resolution", type=int, help="input resolution (the model's default)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per mode (the fastest counts)")
    args = ap.parse_args(argv)
    kwargs = {"resolution": args.resolution} if args.resolution else {}
    compiled = build(args.model, args.target, **kwargs)
    art = compiled.artifact
    best, cycles = {}, set()
    for _ in range(args.repeat):
        for races in ("error", "off"):
            dram = loaded_dram(compiled)
            t0 = time.perf_counter()
            res = simulate(art.program, art.target, dram=dram, races=races)
            best[races] = min(best.get(races, float("inf")), time.perf_counter() - t0)
            cycles.add(res.cycles)
    if len(cycles) != 1:
        print(f"ERROR: cycles differ with and without the race check: {sorted(cycles)}",
              file=sys.stderr)
        return 1
    print(f"{args.model} on {args.target}: {res.instructions} instructions, {res.cycles} cycles")
    print(f"functional, races on : {best['error']:.3f} s")
    print(f"functional, races off: {best['off']:.3f} s")
    print(f"the race check costs {best['error'] / best['off'] - 1:+.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
