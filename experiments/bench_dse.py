"""DSE throughput and search quality: points per hour of `npusim dse run --jobs 2` on a
ResNet-18@224 and a ResNet-50@224 grid, and how close NSGA-II, TPE and random search given 20%
of a grid's budget come to the whole grid's Pareto front (hypervolume ratio).

    python experiments/bench_dse.py [--jobs 2] [--skip-rate] [--skip-quality]
        [--quality-model resnet18 --quality-resolution 32] [--seeds 0,1,...,15] [--batch 8]
        [--grid-cache FILE] [--regrid]

Rate: each grid is a fresh study in a temp folder, run exactly as `npusim dse run` does (J
spawned worker processes; the front-half cache as the user has it: the first run of a model
fills it). Printed: the wall rate (points / wall time, worker start-up and first compiles
included), the per-point cost (median cpu_s of a point: the CPU seconds its worker spent, which
load from other processes hardly moves) and what that
cost makes on 2 idle cores (2 x 3600 / cost). The machine may be shared: the load average is
printed with the figures, and the per-point cost is the figure to compare.

Quality: a 324-point grid (array x vector lanes x DRAM bandwidth x input buffer x accumulator
buffer) of ResNet-18 at 32x32 (a reduced input size, so that the whole grid costs minutes),
minimizing latency_ms, energy_uj and area_mm2 under an area budget of 8 mm^2 (over 40% of
the grid breaks it). The whole grid is evaluated once, with --jobs, and kept in a cache file
(written atomically, named by a hash of the space and of the code that shapes a point's
figures; --regrid evaluates it again); each sampler then gets 65 points (20%) once per seed,
answered from the grid's records through the real driver (`run_study(evaluate=...)`), so a
rerun of the comparison takes a minute. Printed per sampler: the hypervolume ratio's mean,
worst and per-seed values (npusim.dse.hypervolume_ratio: the sampler's feasible points against
the true front, both normalized by the front's ideal and nadir, reference 1.1), the distinct
points asked and how many of the true front's points were found."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

from isa.files import write_atomic
from npusim import dse

RATE_GRIDS = {
    "resnet18": {"array": ["8x8", "16x16"], "dram-bw": [8, 16, 32], "dma-engines": [1, 2]},
    "resnet50": {"array": ["16x16", "32x32"], "dram-bw": [8, 16, 32, 64], "dma-engines": [2]},
}
# a space where search has to work: five attributes with wide, uneven values, an area budget
# that makes part of the grid infeasible (and the compiler refuses a few points), on a real
# network at a reduced input size so that evaluating the whole grid stays affordable
QUALITY_MODEL, QUALITY_RESOLUTION = "resnet18", 32
QUALITY_SPACE = {"array": ["4x4", "8x8", "16x16", "32x32"], "vector-lanes": [4, 16, 64],
                 "dram-bw": [4, 16, 64], "ibuf-kb": [16, 64, 256], "abuf-kb": [32, 128, 512]}
QUALITY_CONSTRAINTS = {"area_mm2": {"max": 8.0}}  # over 40% of the grid infeasible
QUALITY_MINIMIZE, QUALITY_MAXIMIZE = ["latency_ms", "energy_uj", "area_mm2"], []
QUALITY_OBJECTIVES = QUALITY_MINIMIZE + QUALITY_MAXIMIZE
RATE_OBJECTIVES = ["latency_ms", "energy_uj"]
BUDGET_SHARE = 0.2
GRID_CODE_IN_DSE = ("evaluate.py", "objectives.py")  # of npusim/dse, what shapes a point


def space(name: str, models: list, resolution: int | None, params: dict, sampler="grid",
          seed=0, trials=None, folder: Path | None = None, objectives=None, batch=None,
          constraints=None):
    data = {"study": {"name": name, "base": "npu-edge", "sampler": sampler, "seed": seed},
            "workloads": {"models": models}, "space": params,
            "objectives": objectives or {"minimize": QUALITY_MINIMIZE,
                                         "maximize": QUALITY_MAXIMIZE}}
    if constraints:
        data["constraints"] = constraints
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


def code_key() -> str:
    """SHA-256 of the sources that decide a point's figures (compiler, ISA, simulator, the
    point's evaluation; not the samplers or the driver): the grid cache is reused only by the
    code that evaluated it."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for pkg in ("compiler", "isa", "npusim"):
        for path in sorted((root / pkg).rglob("*")):
            rel = path.relative_to(root)
            if rel.parts[:2] == ("npusim", "dse") and path.name not in GRID_CODE_IN_DSE:
                continue
            if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                h.update(str(rel).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def grid_cache_path(given: str | None, key: str) -> Path:
    if given:
        return Path(given)
    from compiler.cache import cache_dir
    base = cache_dir() or Path(tempfile.gettempdir())
    return base / "bench_dse" / f"quality-grid-{key[:16]}.json"


def study_records(space) -> list:
    """The stored record of every finished point of a study, in trial order."""
    from npusim.dse.storage import RECORD, open_study
    study = open_study(space)
    return [t.user_attrs[RECORD] for t in study.get_trials(deepcopy=False)
            if RECORD in t.user_attrs]


def whole_grid(jobs: int, model: str, resolution: int, folder: Path, cache: str | None,
               regrid: bool) -> tuple:
    """Every point of the quality grid evaluated (from the cache file when this code, space
    and workload already filled it): (records, wall seconds to evaluate, cache path, hit)."""
    grid = space("quality-grid", [model], resolution, QUALITY_SPACE, folder=folder,
                 constraints=QUALITY_CONSTRAINTS)
    key = hashlib.sha256(json.dumps([grid.fingerprint(), code_key()]).encode()).hexdigest()
    path = grid_cache_path(cache, key)
    if path.exists() and not regrid:
        data = json.loads(path.read_text())
        if data.get("key") == key:
            return data["records"], data["wall_s"], path, True
    summary = dse.run_study(grid, jobs=jobs, progress=False)
    records = study_records(grid)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"key": key, "model": model, "resolution": resolution,
                                   "space": QUALITY_SPACE, "constraints": QUALITY_CONSTRAINTS,
                                   "wall_s": summary["wall_s"], "records": records}))
    return records, summary["wall_s"], path, False


def losses(records: list) -> np.ndarray:
    """The ok points' objectives as losses (a maximized one negated)."""
    rows = [[rec["values"][o] for o in QUALITY_OBJECTIVES] for rec in records
            if rec["status"] == "ok"]
    x = np.array(rows, float).reshape(-1, len(QUALITY_OBJECTIVES))
    flip = np.array([-1.0 if o in QUALITY_MAXIMIZE else 1.0 for o in QUALITY_OBJECTIVES])
    return x * flip


def replay(records: list):
    """An evaluate function answering each point from the whole grid's records (the same
    record a simulation gives: the grid evaluated every one of them)."""
    by_key = {rec["key"]: rec for rec in records}

    def evaluate(task: dict) -> dict:
        rec = by_key.get(task["key"])
        if rec is None:
            raise KeyError(f"bench_dse: point {task['target']!r} is not in the evaluated grid")
        return dict(rec, number=task["number"])
    return evaluate


def quality(jobs: int, model: str, resolution: int, seeds: list, folder: Path, batch: int,
            cache: str | None, regrid: bool) -> None:
    size = int(np.prod([len(v) for v in QUALITY_SPACE.values()]))
    budget = int(round(BUDGET_SHARE * size))
    limits = ", ".join(f"{k} <= {v['max']:g}" for k, v in QUALITY_CONSTRAINTS.items())
    print(f"\n== search quality: {model}@{resolution} (a reduced input size: the whole grid "
          f"is affordable), timing-only; {size}-point grid "
          f"({' x '.join(f'{k} {len(v)}' for k, v in QUALITY_SPACE.items())}), minimizing "
          f"{', '.join(QUALITY_MINIMIZE)} under {limits}; {budget}-point budget "
          f"({BUDGET_SHARE:.0%}), batch {batch} ({load()})")
    records, wall, path, hit = whole_grid(jobs, model, resolution, folder, cache, regrid)
    counts = {s: sum(r["status"] == s for r in records) for s in ("ok", "infeasible", "failed")}
    universe = losses(records)
    front = dse.non_dominated(universe)
    front_keys = {rec["key"] for rec, on in
                  zip([r for r in records if r["status"] == "ok"], front) if on}
    print(f"grid: {len(records)} points ({counts['ok']} ok, {counts['infeasible']} infeasible, "
          f"{counts['failed']} failed), {int(front.sum())} on the true front; evaluated in "
          f"{wall:.0f} s wall with --jobs {jobs}"
          + (f" (read from the cache {path})" if hit else f" (cached in {path})"))
    print("ratio = hypervolume of a sampler's ok points / the true front's, both normalized "
          "by the front's ideal and nadir, reference 1.1 in each")
    evaluate = replay(records)
    for sampler in ("nsga2", "tpe", "random"):
        ratios, distinct, hits = [], [], []
        for seed in seeds:
            s = space(f"quality-{sampler}-{seed}", [model], resolution, QUALITY_SPACE,
                      sampler=sampler, seed=seed, trials=budget, folder=folder, batch=batch,
                      constraints=QUALITY_CONSTRAINTS)
            dse.run_study(s, progress=False, evaluate=evaluate)
            got = study_records(s)
            ratios.append(dse.hypervolume_ratio(losses(got), universe))
            keys = {rec["key"] for rec in got}
            distinct.append(len(keys))
            hits.append(len(keys & front_keys))
        each = ", ".join(f"{r:.3f}" for r in ratios)
        print(f"{sampler:>6}: hypervolume ratio {statistics.mean(ratios):.3f} mean, "
              f"{min(ratios):.3f} worst (seeds {','.join(map(str, seeds))}: {each}); "
              f"{statistics.mean(distinct):.1f} distinct points, "
              f"{statistics.mean(hits):.1f} of the {len(front_keys)} front points found (mean)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--skip-rate", action="store_true")
    p.add_argument("--skip-quality", action="store_true")
    p.add_argument("--quality-model", default=QUALITY_MODEL)
    p.add_argument("--quality-resolution", type=int, default=QUALITY_RESOLUTION)
    p.add_argument("--seeds", default=",".join(map(str, range(16))))
    p.add_argument("--grid-cache", default=None,
                   help="the evaluated quality grid's file (default: in the npusim cache "
                        "folder, named by the code's and the space's hash)")
    p.add_argument("--regrid", action="store_true",
                   help="evaluate the quality grid again even when the cache has it")
    p.add_argument("--batch", type=int, default=8,
                   help="points tpe/nsga2 ask at a time (NSGA-II's population; default 8)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-dse-") as tmp:
        folder = Path(tmp)
        if not args.skip_rate:
            rate(args.jobs, folder)
        if not args.skip_quality:
            quality(args.jobs, args.quality_model, args.quality_resolution,
                    [int(s) for s in args.seeds.split(",")], folder, args.batch,
                    args.grid_cache, args.regrid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
