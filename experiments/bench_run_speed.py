"""Speed of the main job: `npusim run` end to end (compile, functional simulation, verification)
and timing-only simulation, each in a fresh process as a user runs it.

    python experiments/bench_run_speed.py [--repeat 1] [--warm]

--warm: each case runs once first, unmeasured, on a fresh compile cache folder (a temp
NPUSIM_CACHE_DIR) that the measured runs then share: the second `npusim run` of a model, whose
front half and neighbour-search choice are cached. Without it the runs use the environment's
NPUSIM_CACHE_DIR (the README's figures: `NPUSIM_CACHE_DIR=off`, every compile from scratch).

Prints, per case: wall seconds of the whole command, the compile and simulation seconds it
reports, simulated cycles, instructions and simulated instructions per host second.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CASES = [
    ("resnet18 (default job)", ["run", "--json"]),
    ("resnet18 timing-only", ["run", "resnet18", "--timing-only", "--json"]),
    ("resnet50 timing-only", ["run", "resnet50", "--timing-only", "--json"]),
    ("resnet50 functional", ["run", "resnet50", "--json"]),
    ("mobilenetv2 functional", ["run", "mobilenetv2", "--json"]),
]


def npusim() -> list:
    exe = os.path.join(os.path.dirname(sys.executable), "npusim")
    return [exe] if os.path.exists(exe) else [sys.executable, "-m", "npusim"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", help="run the cases whose name contains this")
    ap.add_argument("--warm", action="store_true",
                    help="measure second runs on a fresh shared compile cache")
    args = ap.parse_args(argv)
    env = dict(os.environ)
    if args.warm:
        env["NPUSIM_CACHE_DIR"] = tempfile.mkdtemp(prefix="npusim-bench-cache-")
    try:
        _bench(args, env)
    finally:
        if args.warm:
            shutil.rmtree(env["NPUSIM_CACHE_DIR"], ignore_errors=True)
    return 0


def _bench(args, env: dict) -> None:
    print(f"{'case':<24} {'wall s':>7} {'compile':>8} {'sim':>6} {'cycles':>12} "
          f"{'instr':>7} {'instr/s':>8} verified")
    for name, cmd in CASES:
        if args.only and args.only not in name:
            continue
        if args.warm:
            subprocess.run(npusim() + cmd, capture_output=True, text=True, env=env)
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            proc = subprocess.run(npusim() + cmd, capture_output=True, text=True, env=env)
            wall = time.perf_counter() - t0
            if proc.returncode not in (0, 1):
                print(f"{name:<24} failed: {proc.stderr.strip()[:200]}")
                continue
            s = json.loads(proc.stdout)
            print(f"{name:<24} {wall:>7.1f} {s['compile_s']:>8.1f} {s['sim_wall_s']:>6.1f} "
                  f"{s['cycles']:>12,} {s['instructions']:>7,} "
                  f"{s['instructions'] / s['sim_wall_s']:>8,.0f} {s['verified']}")


if __name__ == "__main__":
    sys.exit(main())
