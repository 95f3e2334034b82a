"""Codegen quality: simulated cycles of a zoo model against its summed roofline bound, per layer,
and what each conv rewrite contributes (ablation).

    python experiments/codegen_quality.py [--model resnet18] [--target npu-edge]
        [--resolution 224] [--no-ablation] [--json OUT.json]
        [--dma] [--dma-grid] [--energy] [--neighbours] [--cores] [--arrays]
        [--goals [--weight-buffers]]

Prints the per-layer gap (cycles / roofline, excess cycles, schedule) sorted by excess, the
totals, and a table with each rewrite turned off. Timing-only simulation: it gives the same
cycles as the functional run (npusim guarantees it) in a fraction of the time.

The knob sweeps (each instead of the per-layer table; several may be given):
  --dma         cycles at 1/2/4/8 DMA engines of --target, per --models (more engines must
                never be slower; issue 11 allows 0.5%)
  --dma-grid    cycles at 1/2/3/4/8 DMA engines of the cost model's own programs (no neighbour
                search) over DMA_GRID: small models at low resolutions on npu-edge, its 32x32
                array at -dram-bw=32 and its 8x8 array; marks each rise
  --energy      energy, cycles and DRAM bytes of --model at -dram-bw=8/16/32/64 on npu-edge's
                8x8 and 16x16 arrays (cost-model programs; more bandwidth must not cost energy
                for a near-tie of cycles)
  --neighbours  the pair sweep: the program compiled for a Target A run on A against the one
                compiled for a neighbour B (one step of -dram-bw, -dma-engines, a buffer size)
                by B's cost model run on A; a buffer neighbour's program is A's code with B's
                tiles (tile_for); A's own is flow.compile's (the fastest of those programs)
  --cores       cycles and speed-up at 1/2/4/8 cores
  --arrays      cycles / summed roofline at 16x16 and 32x32, with the worst layers
  --goals       issue 11's three ratios against their goals (ResNet-18 on npu-edge <= 1.15x,
                at -array=32x32 <= 1.3x, ResNet-50 on npu-server <= 1.5x), worst layers each,
                on the tags themselves (npu-edge and npu-server have two weight banks per PE:
                a conv's next weights load while it streams); with --weight-buffers, each
                goal's Target again with the other bank count (-weight-buffers=1 on the tags:
                the one-bank array the issue measured; -weight-buffers=2 on a one-bank Target)
"""

from __future__ import annotations

import argparse
import json
import sys

from compiler.errors import CompilerError
from compiler.lower.program import NPU_REWRITES
from isa.checks import target_name
from isa.files import write_atomic
from isa.target import Target
from npusim import flow

REWRITES = {"all rewrites": {}, "no swapped roles": {"swap": False},
            "no stacked rows": {"stack": False},
            "no space-to-depth": {"s2d": False}, "no column folding": {"fold": False},
            "no row-toeplitz dw": {"rowdw": False},
            "no fused blocks": {"fuse": False},
            "no im2col": {"im2col": False},
            "none": dict.fromkeys(NPU_REWRITES, False)}  # every rewrite lower() has


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
    if "stacked" in sched:
        return (f"swapped roles, stacked kernel rows: {m} positions in grid rows of "
                f"{lay.stacking.wg} ({lay.schedule.n} columns), {g.kh} taps per gemm")
    if "swapped" in sched:
        return (f"swapped roles: {m} positions on the padded grid fill "
                f"{lay.schedule.n}-column blocks; k + m + R + C - 1 per pass with m = cout")
    if row["kind"] == "conv":
        passes = f"{g.kh}x{g.kw} taps x ceil({g.cin}/R) channel blocks"
        return f"m = {min(m, lay.schedule.rows * g.ow)} rows/pass ({passes}); {lay.note}"
    return sched


def with_opts(base: Target, **opts) -> Target:
    """`base` with some attributes changed."""
    return base.with_attrs(**opts)


def neighbours(a: Target) -> list:
    """(knob, B, tile_for) for each neighbour B of A whose program runs on A
    (compiler.backends.npu.neighbours: -dram-bw twice and half, one DMA engine less, each
    buffer halved): B's own program, or for a buffer A's code with B's tiles (tile_for; a
    program for other buffer sizes is refused by the runtime, npusim/runtime/compat.py)."""
    from compiler.backends.npu.neighbours import neighbours as steps
    return [(knob, None, b) if knob.endswith("-kb") else (knob, b, None) for knob, b in steps(a)]


def cycles(model, target, resolution=None, on=None, **options) -> int:
    kw = {"resolution": resolution} if resolution else {}
    c = flow.compile(model, target, num_calib=1, **kw, **options)
    return flow.simulate(c, timing_only=True, target=on).cycles


def pair_sweep(model: str, bases: list, resolution=None) -> list:
    """Per (A, neighbour): dict(model, a, knob, b, own, theirs): A's program (flow.compile's,
    the fastest of its neighbours' programs) on A, B's cost-model program on A."""
    rows = []
    for a in bases:
        own = cycles(model, a, resolution)
        for knob, b, tile in neighbours(a):
            # B's program as B's cost model makes it (evaluate=None): the choice among
            # neighbours' programs is made once, for A (B's own choice would draw on B's
            # neighbours, two steps from A)
            theirs = cycles(model, b if b is not None else a, resolution, on=a,
                            evaluate=None, **({"tile_for": tile} if tile is not None else {}))
            rows.append({"model": model, "a": target_name(a), "knob": knob,
                         "b": target_name(b or tile),
                         "own": own, "theirs": theirs})
    return rows


SWEEP_BASES = [Target("npu-edge", **o) for o in ({}, {"dram_bw": 1}, {"dram_bw": 4},
                                                  {"dram_bw": 64}, {"dma_engines": 4},
                                                  {"dma_engines": 1})]


def print_dma(args, out: dict) -> None:
    print(f"\n{'model':<12} " + " ".join(f"{e:>2} engines" for e in (1, 2, 4, 8)))
    base = Target.create(args.target)
    for model in args.models:
        row = [cycles(model, with_opts(base, dma_engines=e), args.resolution)
               for e in (1, 2, 4, 8)]
        out.setdefault("dma", {})[model] = row
        worst = max(b / a for a, b in zip(row, row[1:]))
        print(f"{model:<12} " + " ".join(f"{c:>10,}" for c in row) +
              f"   more engines at most {worst - 1:+.2%}")


ENGINES = (1, 2, 3, 4, 8)
# (model, resolution, Target) of --dma-grid; resolution None: the model's own
DMA_GRID = [(m, r, t) for t in ("npu-edge", "npu-edge -array=32x32 -dram-bw=32",
                                "npu-edge -array=8x8")
            for m, r in (("small_cnn", None), ("resnet18", 32), ("mobilenetv2", 32),
                         ("resnet18", 64), ("mobilenetv2", 64), ("resnet50", 64))]


def engine_sweep(model: str, resolution, target: str, engines=ENGINES) -> list:
    """Cycles of the cost model's program (evaluate=None: no neighbour search) per engine
    count: what the compiler's choices alone make of more DMA engines."""
    base = Target.create(target)
    return [cycles(model, with_opts(base, dma_engines=e), resolution, evaluate=None)
            for e in engines]


def print_dma_grid(args, out: dict) -> None:
    print(f"\n{'target':<34} {'model':<12} {'res':>4} " +
          " ".join(f"{e:>9}" for e in ENGINES) + "  worst step")
    out["dma_grid"] = []
    for model, res, target in DMA_GRID:
        row = engine_sweep(model, res, target)
        worst = max(b / a for a, b in zip(row, row[1:])) - 1
        print(f"{target:<34} {model:<12} {res or '-':>4} " + " ".join(f"{c:>9,}" for c in row)
              + f"  {worst:+.3%}" + ("  rises" if worst > 0 else ""))
        out["dma_grid"].append({"model": model, "resolution": res, "target": target,
                                "cycles": row})


def print_energy(args, out: dict) -> None:
    print(f"\n{args.model} at {args.resolution}: array, -dram-bw, cycles, energy, DRAM bytes")
    out["energy"] = []
    for arr in ("8x8", "16x16"):
        for bw in (8, 16, 32, 64):
            target = f"npu-edge -array={arr} -dram-bw={bw}"
            c = flow.compile(args.model, target, resolution=args.resolution, num_calib=1,
                             evaluate=None)
            s = flow.simulate(c, timing_only=True).to_json()
            print(f"{arr:>6} {bw:>4} {s['cycles']:>12,} {s['energy_pj'] / 1e9:>8.2f} mJ "
                  f"{s['dram_bytes'] / 1e6:>7.2f} MB")
            out["energy"].append({"array": arr, "dram_bw": bw, "cycles": s["cycles"],
                                  "energy_pj": s["energy_pj"], "dram_bytes": s["dram_bytes"]})


def print_neighbours(args, out: dict) -> None:
    print(f"\n{'model':<10} {'A':<34} {'knob':<12} {'A on A':>9} {'B on A':>9}  ratio")
    rows = []
    for model, res in (("small_cnn", None), ("mlp", None), ("resnet18", 32)):
        rows += pair_sweep(model, SWEEP_BASES, res)
    for r in rows:
        print(f"{r['model']:<10} {r['a'][:34]:<34} {r['knob']:<12} {r['own']:>9,} "
              f"{r['theirs']:>9,}  {r['own'] / r['theirs']:.3f}"
              + ("  slower" if r["own"] > r["theirs"] else ""))
    worst = max(rows, key=lambda r: r["own"] / r["theirs"])
    print(f"worst pair: {worst['model']} on {worst['a']}, {worst['knob']} neighbour "
          f"{worst['own'] / worst['theirs']:.3f}x; {sum(r['own'] > r['theirs'] for r in rows)}"
          f" of {len(rows)} pairs slower")
    out["neighbours"] = rows


def print_cores(args, out: dict) -> None:
    base = Target.create(args.target)
    print(f"\n{args.model} at {args.resolution}: cores, cycles, speed-up")
    row = {}
    for n in (1, 2, 4, 8):
        try:
            row[n] = cycles(args.model, with_opts(base, num_cores=n), args.resolution)
        except CompilerError as e:  # shown, not hidden: the sweep goes on
            row[n] = None
            print(f"{n:>2} does not compile: {e}")
            continue
        print(f"{n:>2} {row[n]:>12,} {row[1] / row[n]:6.2f}x")
    out["cores"] = row


def print_arrays(args, out: dict) -> None:
    base = Target.create(args.target)
    print(f"\n{args.model} at {args.resolution}: array, cycles, x summed roofline, worst layers")
    out["arrays"] = {}
    for arr in ((16, 16), (32, 32)):
        _, s = measure(args.model, with_opts(base, array=arr), args.resolution, {})
        worst = sorted((r for r in s["layers"] if r["roofline_cycles"]),
                       key=lambda r: -r["cycles"] / r["roofline_cycles"])[:4]
        print(f"{arr[0]}x{arr[1]} {s['cycles']:>12,} {s['roofline_ratio']:6.3f}x  " +
              ", ".join(f"{r['name']} {r['cycles'] / r['roofline_cycles']:.2f}x"
                        for r in worst))
        out["arrays"][f"{arr[0]}x{arr[1]}"] = s["cycles"]


GOALS = (("resnet18", "npu-edge", 1.15), ("resnet18", "npu-edge -array=32x32", 1.3),
         ("resnet50", "npu-server", 1.5))


def other_banks(target: str) -> str:
    """`target` with the other weight-bank count: the A/B of --goals --weight-buffers."""
    banks = Target.create(target).weight_buffers
    return f"{target} -weight-buffers={1 if banks > 1 else 2}"


def print_goals(args, out: dict) -> None:
    out["goals"] = {}
    goals = GOALS
    if args.weight_buffers:  # each goal's Target with and without the second weight bank
        goals = [g for model, target, goal in GOALS
                 for g in ((model, target, goal), (model, other_banks(target), goal))]
    wide = max(22, *(len(target) for _, target, _ in goals))
    print(f"\n{'model':<10} {'target':<{wide}} {'cycles':>11} {'x roofline':>10} {'goal':>5}  "
          "worst layers (x their roofline)")
    for model, target, goal in goals:
        _, s = measure(model, target, args.resolution, {})
        worst = sorted((r for r in s["layers"] if r["roofline_cycles"]),
                       key=lambda r: -(r["cycles"] - r["roofline_cycles"]))[:5]
        print(f"{model:<10} {target:<{wide}} {s['cycles']:>11,} {s['roofline_ratio']:>10.3f} "
              f"{goal:>5.2f}  " + ", ".join(f"{r['name']} {r['cycles'] / r['roofline_cycles']:.2f}x"
                                           for r in worst)
              + ("" if s["roofline_ratio"] <= goal else "  (not met)"))
        out["goals"][f"{model} {target}"] = {"cycles": s["cycles"],
                                              "ratio": s["roofline_ratio"], "goal": goal}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--target", default="npu-edge")
    ap.add_argument("--resolution", type=int, default=224)
    ap.add_argument("--no-ablation", action="store_true")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--dma", action="store_true", help="1/2/4/8 DMA engines per model")
    ap.add_argument("--models", nargs="+", default=["resnet18", "resnet50", "mobilenetv2"],
                    help="the models of --dma")
    ap.add_argument("--dma-grid", action="store_true",
                    help="1/2/3/4/8 DMA engines over a grid of small models and Targets")
    ap.add_argument("--energy", action="store_true",
                    help="energy vs -dram-bw on the 8x8 and 16x16 arrays for --model")
    ap.add_argument("--neighbours", action="store_true", help="the neighbour-target pairs")
    ap.add_argument("--cores", action="store_true", help="1/2/4/8 cores on --model")
    ap.add_argument("--arrays", action="store_true", help="16x16 against 32x32 on --model")
    ap.add_argument("--goals", action="store_true",
                    help="the three roofline ratios of issue 11 against their goals")
    ap.add_argument("--weight-buffers", action="store_true",
                    help="with --goals: each goal's Target also with the other weight-bank "
                         "count (-weight-buffers=1 on the tags, which have two)")
    args = ap.parse_args(argv)
    sweeps = [f for flag, f in ((args.dma, print_dma), (args.dma_grid, print_dma_grid),
                                (args.energy, print_energy),
                                (args.neighbours, print_neighbours),
                                (args.cores, print_cores), (args.arrays, print_arrays),
                                (args.goals, print_goals)) if flag]
    if sweeps:
        out: dict = {}
        for sweep in sweeps:
            sweep(args, out)
        if args.json:
            write_atomic(args.json, json.dumps(out, indent=1))
        return 0

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
        write_atomic(args.json, json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
