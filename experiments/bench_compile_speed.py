"""Compile speed of this tree against a baseline revision, side by side in one run: a cold
compile (empty front-half cache) and a warm recompile of the same model for a new Target.

    python experiments/bench_compile_speed.py [--baseline a40910b] [--models resnet18,resnet50]
        [--target npu-edge] [--new-target "npu-edge -dram-bw=32"] [--repeat 3]

The baseline is checked out with `git worktree add` into a temp folder (removed afterwards).
Every measurement is a fresh process with PYTHONPATH set to its tree and its own fresh cache
folder (NPUSIM_CACHE_DIR): "cold" compiles MODEL for TARGET there, "warm" then compiles it for
NEW_TARGET in a second process on the same folder (the baseline has no cache: it recompiles
everything). The seconds are those of the `compiler.backends.build` call (imports excluded: a
warm-up compile of the small mlp first, in both trees, imports every module of the compile
path). Baseline and this tree alternate, so load from other processes hits
both alike; each figure is the best of --repeat runs, and speedup = baseline / this tree.
The CPU columns are the same calls' CPU seconds (every thread of the process; best of the
runs too): a loaded machine stretches them far less than the wall clock, so they compare the
work done (the baseline's BLAS threads spin-wait, which adds to its CPU time).
It also prints what each tree makes of TARGET and NEW_TARGET (a tag's parameters may differ
between the revisions, e.g. a weight bank added to a tag: each tree compiles its own reading,
and a differing instruction count is noted) and the load average before and after the run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# one compile in the child process, after a warm-up compile of the small mlp in both trees
# so that every module of the compile path is imported first (imports are not compiling):
# prints {"seconds": ..., "cpu": ..., "instructions": ...} (cpu: the process's CPU seconds
# over all its threads, which a loaded machine stretches far less than the wall clock)
CHILD = """
import json, sys, time
from compiler.backends import build
build("mlp", "npu-tiny")
t0, c0 = time.perf_counter(), time.process_time()
compiled = build(sys.argv[1], sys.argv[2])
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"seconds": seconds, "cpu": cpu,
                  "instructions": compiled.artifact.program.num_instructions}))
"""


# what a Target name means in a tree (a tag's parameters may differ between the revisions:
# each tree compiles its own reading of it, and the output says what that was)
TARGET_CHILD = """
import sys
from isa.target import Target
for name in sys.argv[1:]:
    print(Target.create(name))
"""


def resolved_targets(tree: Path, names: list) -> list:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.run([sys.executable, "-c", TARGET_CHILD, *names], cwd=tree, env=env,
                          capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    return lines if not proc.returncode and len(lines) == len(names) else \
        ["(could not resolve it there)"] * len(names)


def differences(here: str, there: str) -> str:
    """What the baseline's reading of a Target has that this tree's has not, as -key=value
    lists ('the same' when equal)."""
    if here.split()[:1] != there.split()[:1]:  # another kind, or not resolved there
        return there
    ours, theirs = (dict(t.lstrip("-").split("=", 1) for t in s.split()[1:] if "=" in t)
                    for s in (here, there))
    if ours == theirs:
        return "the same"
    changed = [f"-{k}={theirs[k]} (here {ours[k]})" for k in ours if k in theirs and
               theirs[k] != ours[k]]
    return ", ".join(changed + [f"no -{k}" for k in ours if k not in theirs] +
                     [f"-{k}={v} (not here)" for k, v in theirs.items() if k not in ours])


def compile_once(tree: Path, cache: Path, model: str, target: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "NPUSIM_CACHE_DIR": str(cache)}
    proc = subprocess.run([sys.executable, "-c", CHILD, model, target], cwd=tree, env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"compile of {model} for '{target}' in {tree} failed:\n"
                         f"{proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cold_and_warm(tree: Path, model: str, target: str, new_target: str) -> tuple:
    cache = Path(tempfile.mkdtemp(prefix="npusim-bench-cache-"))
    try:
        cold = compile_once(tree, cache, model, target)
        warm = compile_once(tree, cache, model, new_target)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return cold, warm


def baseline_worktree(rev: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix="npusim-baseline-")) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev],
                   check=True, capture_output=True, text=True)
    return path


def remove_worktree(path: Path) -> None:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                   capture_output=True, text=True)
    shutil.rmtree(path.parent, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="a40910b", help="git revision to compare against")
    ap.add_argument("--models", default="resnet18,resnet50")
    ap.add_argument("--target", default="npu-edge")
    ap.add_argument("--new-target", default="npu-edge -dram-bw=32",
                    help="the Target of the warm recompile")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    base = baseline_worktree(args.baseline)
    rows = []
    names = [args.target, args.new_target]
    targets = {"this": resolved_targets(ROOT, names), "baseline": resolved_targets(base, names)}
    try:
        for model in args.models.split(","):
            best = {}
            for _ in range(args.repeat):
                for tree, who in ((base, "baseline"), (ROOT, "this")):
                    cold, warm = cold_and_warm(tree, model, args.target, args.new_target)
                    for phase, r in (("cold", cold), ("warm", warm)):
                        key = (who, phase)
                        if key not in best or r["seconds"] < best[key]["seconds"]:
                            best[key] = {**r, "cpu": best.get(key, r)["cpu"]}
                        best[key]["cpu"] = min(best[key]["cpu"], r["cpu"])
            for phase, what in (("cold", f"cold compile, {args.target}"),
                                ("warm", f"warm recompile, {args.new_target}")):
                b, t = best[("baseline", phase)], best[("this", phase)]
                if b["instructions"] != t["instructions"]:
                    print(f"note: {model} {phase}: {b['instructions']} instructions at the "
                          f"baseline, {t['instructions']} here", file=sys.stderr)
                rows.append((model, what, b["seconds"], t["seconds"], b["cpu"], t["cpu"]))
    finally:
        remove_worktree(base)
    print(f"baseline {args.baseline}, best of {args.repeat}; seconds of the build() call "
          "(wall clock), and its CPU seconds (all threads); load average (1/5/15 min) "
          f"{'/'.join(f'{x:.1f}' for x in load_before)} before, "
          f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())} after, on {os.cpu_count()} cores")
    for name, here, there in zip(names, targets["this"], targets["baseline"]):
        print(f"target '{name}' here: {here}")
        print(f"  at the baseline: {differences(here, there)}")
    print(f"{'model':<10} {'case':<40} {'baseline s':>10} {'this s':>8} {'speedup':>8} "
          f"{'cpu base':>9} {'cpu this':>9} {'cpu x':>6}")
    for model, what, b, t, bc, tc in rows:
        print(f"{model:<10} {what:<40} {b:>10.2f} {t:>8.2f} {b / t:>7.1f}x "
              f"{bc:>9.2f} {tc:>9.2f} {bc / tc:>5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
