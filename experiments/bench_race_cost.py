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

from compiler.backends import build
from npusim import flow


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--target", default="npu-edge")
    ap.add_argument("--resolution", type=int, help="input resolution (the model's default)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per mode (the fastest counts)")
    args = ap.parse_args(argv)
    kwargs = {"resolution": args.resolution} if args.resolution else {}
    compiled = build(args.model, args.target, **kwargs)
    dev_in = flow.device_inputs(compiled, flow.random_inputs(compiled))
    best, cycles = {}, set()
    for _ in range(args.repeat):
        for races in ("error", "off"):
            t0 = time.perf_counter()  # the DRAM image load is timed too (the same in both)
            res, _ = flow.execute(compiled.artifact, dev_in, races=races)
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
