"""DSE throughput and search quality: points per hour of `npusim dse run --jobs 2` on a
ResNet-18@224 and a ResNet-50@224 grid, and how close NSGA-II, TPE and random search given 20%
of a grid's budget come to the whole grid's Pareto front (hypervolume ratio).

    python experiments/bench_dse.py [--jobs 2] [--skip-rate] [--skip-quality]
        [--quality-model small_cnn --quality-resolution 16] [--seeds 0,1,2] [--batch 8]

Rate: each grid is a fresh study in a temp folder, run exactly as `npusim dse run` does (J
spawned worker processes; the front-half cache as the user has it: the first run of a model
fills it). Printed: the wall rate (points / wall time, worker start-up and first compiles
included), the per-point cost (median cpu_s of a point: the CPU seconds its worker spent, which
load from other processes hardly moves) and what that
cost makes on 2 idle cores (2 x 3600 / cost). The machine may be shared: the load average is
printed with the figures, and the per-point cost is the figure to compare.

Quality: a 225-point grid (array x DRAM bandwidth x DMA engines x vector lanes) of a cheap
workload, minimizing latency_ms, energy_uj and area_mm2; each sampler gets 45 points (20%),
once per seed. Objectives are normalized by the grid's min and max; the reference point is 1.1
in each; ratio = hypervolume of the sampler's ok points / that of the whole grid's."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

RATE_GRIDS = {
    "resnet18": {"array": ["8x8", "16x16"], "dram-bw": [8, 16, 32], "dma-engines": [1, 2]},
    "resnet50": {"array": ["16x16", "32x32"], "dram-bw": [8, 16, 32, 64], "dma-engines": [2]},
}
QUALITY_SPACE = {"array": ["4x4", "8x8", "16x16"], "dram-bw": [4, 8, 16, 32, 64],
                 "dma-engines": [1, 2, 4], "vector-lanes": [4, 8, 16, 32, 64]}
# the issue's own three (latency and energy alone hardly conflict: leakage makes the fastest
# point nearly the most frugal too; area is what a faster design pays)
QUALITY_MINIMIZE, QUALITY_MAXIMIZE = ["latency_ms", "energy_uj", "area_mm2"], []
QUALITY_OBJECTIVES = QUALITY_MINIMIZE + QUALITY_MAXIMIZE
RATE_OBJECTIVES = ["latency_ms", "energy_uj"]
BUDGET_SHARE = 0.2


def space(name: str, models: list, resolution: int | None, params: dict, sampler="grid",
          seed=0, trials=None, folder: Path | None = None, objectives=None, batch=None):
    from npusim import dse
    data = {"study": {"name": name, "base": "npu-edge", "sampler": sampler, "seed": seed},
            "workloads": {"models": models}, "space": params,
            "objectives": objectives or {"minimize": QUALITY_MINIMIZE,
                                         "maximize": QUALITY_MAXIMIZE}}
    if resolution:
        data["workloads"]["resolution"] = resolution
    if trials:
        data["study"]["trials"] = trials
    if batch:
        data["study"]["batch"] = batch
    return dse.parse_space(data, source=str(folder / f"{name}.toml"))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def rate(jobs: int, folder: Path) -> None:
    from npusim import dse
    print(f"== points per hour, --jobs {jobs} ({load()})")
    for model, params in RATE_GRIDS.items():
        s = space(f"rate-{model}", [model], 224, params, folder=folder,
                  objectives={"minimize": RATE_OBJECTIVES})
        summary = dse.run_study(s, jobs=jobs, progress=False)
        df = dse.load(s)
        cost = statistics.median(df["cpu_s"])
        print(f"{model}@224: {summary['evaluated']} points in {summary['wall_s']:.1f} s wall = "
              f"{summary['points_per_hour']:.0f} points/hour; per point {cost:.2f} s of one "
              f"core's CPU (median; max {df['cpu_s'].max():.2f}, wall median "
              f"{statistics.median(df['wall_s']):.2f}) -> {2 * 3600 / cost:.0f} points/hour on "
              f"2 idle cores; {summary['ok']} ok ({load()})")


def normalized(df, lo, hi) -> np.ndarray:
    """The ok points as losses in [0, 1] over the grid's range (a maximized one flipped)."""
    ok = df[df["status"] == "ok"].dropna(subset=QUALITY_OBJECTIVES)
    x = (ok[QUALITY_OBJECTIVES].to_numpy(float) - lo) / np.where(hi > lo, hi - lo, 1.0)
    flip = np.array([o in QUALITY_MAXIMIZE for o in QUALITY_OBJECTIVES])
    return np.where(flip, 1.0 - x, x)


def quality(jobs: int, model: str, resolution: int | None, seeds: list, folder: Path,
            batch: int) -> None:
    from npusim import dse
    size = int(np.prod([len(v) for v in QUALITY_SPACE.values()]))
    budget = int(round(BUDGET_SHARE * size))
    where = f"{model}@{resolution}" if resolution else model
    print(f"\n== search quality: {where}, {size}-point grid, {budget}-point budget "
          f"({BUDGET_SHARE:.0%}, batch {batch}), minimizing {', '.join(QUALITY_MINIMIZE)}"
          + (f", maximizing {', '.join(QUALITY_MAXIMIZE)}" if QUALITY_MAXIMIZE else "")
          + f" ({load()})")
    grid = space("quality-grid", [model], resolution, QUALITY_SPACE, folder=folder)
    g = dse.run_study(grid, jobs=jobs, progress=False)
    whole = dse.load(grid)
    ok = whole[whole["status"] == "ok"]
    lo, hi = ok[QUALITY_OBJECTIVES].min().to_numpy(), ok[QUALITY_OBJECTIVES].max().to_numpy()
    ref = np.full(len(QUALITY_OBJECTIVES), 1.1)
    full = dse.hypervolume(normalized(whole, lo, hi), ref)
    front = dse.pareto_front(whole)
    print(f"grid: {len(ok)} ok points in {g['wall_s']:.1f} s, {len(front)} on the front, "
          f"hypervolume {full:.4f}")
    for sampler in ("nsga2", "tpe", "random"):
        ratios = []
        for seed in seeds:
            s = space(f"quality-{sampler}-{seed}", [model], resolution, QUALITY_SPACE,
                      sampler=sampler, seed=seed, trials=budget, folder=folder, batch=batch)
            dse.run_study(s, jobs=jobs, progress=False)
            ratios.append(dse.hypervolume(normalized(dse.load(s), lo, hi), ref) / full)
        each = ", ".join(f"{r:.3f}" for r in ratios)
        print(f"{sampler:>6}: hypervolume ratio {statistics.mean(ratios):.3f} mean, "
              f"{min(ratios):.3f} worst (seeds {','.join(map(str, seeds))}: {each})")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--skip-rate", action="store_true")
    p.add_argument("--skip-quality", action="store_true")
    p.add_argument("--quality-model", default="small_cnn")
    p.add_argument("--quality-resolution", type=int, default=16)
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--batch", type=int, default=8,
                   help="points tpe/nsga2 ask at a time (NSGA-II's population; default 8)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-dse-") as tmp:
        folder = Path(tmp)
        if not args.skip_rate:
            rate(args.jobs, folder)
        if not args.skip_quality:
            quality(args.jobs, args.quality_model, args.quality_resolution,
                    [int(s) for s in args.seeds.split(",")], folder, args.batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
