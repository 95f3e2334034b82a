"""Codegen quality: simulated cycles of a zoo model against its summed roofline bound, per layer,
and what each conv rewrite contributes (ablation).

    python experiments/codegen_quality.py [--model resnet18] [--target npu-edge]
        [--resolution 224] [--no-ablation] [--json OUT.json]

Prints the per-layer gap (cycles / roofline, excess cycles, schedule) sorted by excess, the
totals, and a table with each rewrite turned off. Timing-only simulation: it gives the same
cycles as the functional run (npusim guarantees it) in a fraction of the time.
"""

from __future__ import annotations

import argparse
import json
import sys

from npusim import flow

REWRITES = {"all rewrites": {}, "no swapped roles": {"swap": False},
            "no space-to-depth": {"s2d": False}, "no column folding": {"fold": False},
            "none": {"swap": False, "s2d": False, "fold": False}}


def measure(model: str, target: str, resolution: int, rewrites: dict) -> tuple:
    compiled = flow.compile(model, target, resolution=resolution, rewrites=rewrites,
                            num_calib=1)
    return compiled, flow.simulate(compiled, timing_only=True).to_json()


def why(row: dict, lay) -> str:
    """A short reason for a layer's gap, from its lowering."""
    sched = row.get("schedule", "")
    g = getattr(lay, "geom", None)
    if row["kind"] == "copy":
        return "data movement added by a rewrite (no roofline of its own)"
    if g is None:
        return sched
    m = g.oh * g.ow
    if "swapped" in sched:
        return (f"swapped roles: {m} positions on the padded grid fill "
                f"{lay.schedule.n}-column blocks; k + m + R + C - 1 per pass with m = cout")
    if row["kind"] == "conv":
        passes = f"{g.kh}x{g.kw} taps x ceil({g.cin}/R) channel blocks"
        return f"m = {min(m, lay.schedule.rows * g.ow)} rows/pass ({passes}); {lay.note}"
    return sched


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--target", default="npu-edge")
    ap.add_argument("--resolution", type=int, default=224)
    ap.add_argument("--no-ablation", action="store_true")
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args(argv)

    compiled, s = measure(args.model, args.target, args.resolution, {})
    lowered = {lay.name: lay for lay in compiled.built.lowered.layers}
    rows = sorted(s["layers"], key=lambda r: r["roofline_cycles"] - r["cycles"])
    print(f"{args.model} at {args.resolution} on {args.target}: {s['cycles']:,} cycles, "
          f"roofline {s['roofline_cycles']:,.0f} -> {s['roofline_ratio']:.3f}x "
          f"(utilization {s['utilization']:.1%}, {s['instructions']:,} instructions)\n")
    print(f"{'layer':<22} {'cycles':>10} {'roofline':>10} {'x':>5} {'excess':>9}  why")
    for r in rows:
        ratio = r["cycles"] / r["roofline_cycles"] if r["roofline_cycles"] else float("inf")
        print(f"{r['name'][:22]:<22} {r['cycles']:>10,} {r['roofline_cycles']:>10,.0f} "
              f"{ratio:>5.2f} {r['cycles'] - r['roofline_cycles']:>9,.0f}  "
              f"{why(r, lowered[r['name']])}")
    out = {"summary": {k: v for k, v in s.items() if k != "layers"}, "layers": s["layers"]}
    if not args.no_ablation:
        print(f"\n{'rewrites':<20} {'cycles':>11} {'x roofline':>10}")
        out["ablation"] = {}
        for name, flags in REWRITES.items():
            _, a = (compiled, s) if not flags else measure(args.model, args.target,
                                                           args.resolution, flags)
            out["ablation"][name] = a["cycles"]
            print(f"{name:<20} {a['cycles']:>11,} {a['roofline_ratio']:>10.3f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
