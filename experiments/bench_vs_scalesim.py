"""SCALE-Sim 3.0.0 and `npusim scalesim` side by side on the same config and topology:
cycles per layer, wall time and peak memory of each, and the ratios.

    python experiments/bench_vs_scalesim.py                 # ResNet-18, 32x32, ws (~5 min)
    python experiments/bench_vs_scalesim.py --config r18_os_32x32.cfg
    python experiments/bench_vs_scalesim.py --topology GEMM_mnk/test_mnk_input.csv -i gemm \\
        --config gemm_ws_32x32.cfg

SCALE-Sim runs from its own virtual environment (created on first use under --venv, default
~/.cache/npusim/scalesim-3.0.0: `pip install scalesim==3.0.0 'numpy<2.4'`, as 3.0.0 needs),
without traces (-s N); ours runs with the compile cache off (NPUSIM_CACHE_DIR=off), so both
start cold. Each tool is one child process; its peak memory is that child's max RSS
(os.wait4), its wall time the child's lifetime. Relative config/topology paths are looked up
in the shared sample (--shared, default tests/scalesim/sample).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCALESIM = ("scalesim==3.0.0", "numpy<2.4")


def ensure_venv(venv: Path) -> Path:
    """The venv's python, creating the venv and installing SCALE-Sim 3.0.0 when missing."""
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import scalesim.scale_sim"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"creating {venv} with {' '.join(SCALESIM)} ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *SCALESIM], check=True)
    subprocess.run(probe, check=True)
    return python


def timed(cmd: list, cwd: Path, env: dict | None = None) -> tuple:
    """(wall seconds, peak RSS in MiB, exit status, CPU seconds) of one child process, its
    output kept in cwd/log.txt. CPU seconds (user + system) move less than wall time when
    other work shares the machine."""
    with open(cwd / "log.txt", "wb") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss / 1024, proc.returncode, cpu  # ru_maxrss: KiB on Linux


def compute_report(path: Path) -> list:
    """Rows of a COMPUTE_REPORT.csv as {column: text} (SCALE-Sim's layout: ', ' separated,
    a trailing comma)."""
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    head = [h.strip() for h in lines[0].rstrip(", ").split(",")]
    return [dict(zip(head, (v.strip() for v in line.rstrip(", ").split(","))))
            for line in lines[1:]]


def find(shared: Path, name: str, sub: str) -> Path:
    p = Path(name)
    return p if p.exists() else shared / sub / name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT / "tests" / "scalesim" / "sample")
    ap.add_argument("--config", default="r18_ws_32x32.cfg")
    ap.add_argument("--topology", default="conv_nets/Resnet18.csv")
    ap.add_argument("-i", dest="fmt", choices=("conv", "gemm"), default="conv")
    ap.add_argument("--venv", type=Path,
                    default=Path.home() / ".cache" / "npusim" / "scalesim-3.0.0")
    ap.add_argument("--skip-scalesim", action="store_true",
                    help="run ours only (no SCALE-Sim numbers, no ratios)")
    args = ap.parse_args()
    config = find(args.shared, args.config, "configs").resolve()
    topology = find(args.shared, args.topology, "topologies").resolve()
    run_name = next(line.split("=", 1)[1].strip() for line in config.read_text().splitlines()
                    if line.strip().startswith("run_name"))
    work = Path(tempfile.mkdtemp(prefix="bench_vs_scalesim_"))
    print(f"config {config}\ntopology {topology} ({args.fmt})\nwork {work}")

    ours_dir = work / "npusim"
    ours_dir.mkdir()
    env = {**os.environ, "NPUSIM_CACHE_DIR": "off",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    ours = timed([sys.executable, "-m", "npusim", "scalesim", "-c", str(config), "-t",
                  str(topology), "-i", args.fmt, "-p", str(ours_dir)], ours_dir, env)
    if ours[2]:
        print((ours_dir / "log.txt").read_text())
        return 1
    mine = compute_report(ours_dir / run_name / "COMPUTE_REPORT.csv")

    theirs, rows = None, []
    if not args.skip_scalesim:
        python = ensure_venv(args.venv)
        ss_dir = work / "scalesim"
        ss_dir.mkdir()
        # 3.0.0 insists on a layout file even with IfmapCustomLayout False: a header only
        layout = ss_dir / "layout.csv"
        layout.write_text("Layer name,\n")
        theirs = timed([str(python), "-m", "scalesim.scale", "-c", str(config), "-t",
                        str(topology), "-l", str(layout), "-i", args.fmt, "-p", str(ss_dir),
                        "-s", "N"], ss_dir)
        if theirs[2]:
            print((ss_dir / "log.txt").read_text()[-3000:])
            return 1
        rows = compute_report(ss_dir / run_name / "COMPUTE_REPORT.csv")

    print(f"\n{'layer':>5} {'name':12} {'SCALE-Sim compute':>17} {'ours compute':>12} "
          f"{'ratio':>6}   {'SCALE-Sim incl. prefetch':>24} {'ours incl. prefetch':>19}")
    tot = [0, 0, 0, 0]
    for i, m in enumerate(mine):
        oc, oi = int(m["Compute Cycles"]), int(m["Total Cycles (incl. prefetch)"])
        tot[1] += oc
        tot[3] += oi
        if rows:
            s = rows[i]
            sc = int(s["Total Cycles"]) - int(s["Stall Cycles"])
            si = int(s["Total Cycles (incl. prefetch)"])
            tot[0] += sc
            tot[2] += si
            print(f"{i:>5} {m['Layer']:12} {sc:>17} {oc:>12} {oc / sc:>6.3f}   {si:>24} {oi:>19}")
        else:
            print(f"{i:>5} {m['Layer']:12} {'-':>17} {oc:>12} {'-':>6}   {'-':>24} {oi:>19}")
    if rows:
        print(f"{'':>5} {'total':12} {tot[0]:>17} {tot[1]:>12} {tot[1] / tot[0]:>6.3f}   "
              f"{tot[2]:>24} {tot[3]:>19}")
    print(f"\nnpusim scalesim  wall {ours[0]:8.1f} s   CPU {ours[3]:8.1f} s   "
          f"peak RSS {ours[1]:8.0f} MiB")
    if theirs:
        print(f"SCALE-Sim 3.0.0  wall {theirs[0]:8.1f} s   CPU {theirs[3]:8.1f} s   "
              f"peak RSS {theirs[1]:8.0f} MiB")
        speed, mem = theirs[0] / ours[0], theirs[1] / ours[1]
        print(f"ratio            {speed:.0f}x faster (wall; {theirs[3] / ours[3]:.0f}x in CPU "
              f"time), {mem:.1f}x less memory "
              f"(goal: >= 100x faster, <= 1/10 of its memory: "
              f"{'met' if speed >= 100 and mem >= 10 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
