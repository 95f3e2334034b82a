"""Side-by-side simulator speed of this tree and a git revision (bench_sim_speed.py --baseline).

Both trees simulate the same programs: this tree compiles the zoo models once and writes each
program (its words per core) and, for functional runs, its initial DRAM (constants and seeded
inputs) to a file; the conv loop is built from isa.instruction in each tree. Where REV cannot
decode this tree's words (an instruction or field newer than REV), REV's own compiler writes
the programs instead, which this tree decodes as well (the ISA keeps old words valid). Each tree gets a
long-lived worker subprocess (this file with --worker, PYTHONPATH at the tree) that answers
"simulate workload in mode" requests with the CPU time (time.process_time) of the simulate()
call alone. Requests alternate between the two workers and each result is the best of N,
because the host is shared: wall time and a single run mean little, interleaved CPU-time
minima do.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# (name, model, resolution): the conv loop is built by bench_sim_speed; zoo models compile on
# npu-edge; functional ResNet-50 at 224 takes minutes per run, so functional runs at 64x64
WORKLOADS = (("conv-loop", None, None), ("resnet18", "resnet18", None),
             ("resnet50", "resnet50", None))
FUNCTIONAL_RESOLUTION = {"resnet18": 64, "resnet50": 64}


class Worker:
    """One tree's worker process: line-delimited JSON requests and answers."""

    def __init__(self, tree: Path, instructions: int, target: str, programs: Path):
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "bench_baseline.py"), "--worker", str(instructions),
             target, str(programs)], env=env, cwd=tree, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True)

    def ask(self, **request) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"benchmark worker died on {request}")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def write_programs(tmp: Path, target: str) -> None:
    """Compile every zoo workload here, once: program words and initial DRAM to tmp/*.npz."""
    from compiler.backends import build
    from isa.target import Target
    from npusim.memory import Dram
    size = Target.create(target).derived.dram_bytes
    for name, model, _ in WORKLOADS:
        if model is None:
            continue
        for functional in (False, True):
            res = FUNCTIONAL_RESOLUTION.get(name) if functional else None
            art = build(model, target, **({"resolution": res} if res else {})).artifact
            dram = Dram(size)
            art.dram_image(dram)
            rng = np.random.default_rng(0)
            for e in art.inputs:
                dram.write(e.dram, rng.integers(-128, 128, e.shape).astype(e.dtype))
            used = np.flatnonzero(dram.bytes)
            lo, hi = (int(used[0]), int(used[-1]) + 1) if used.size else (0, 0)
            cores = np.empty(len(art.program.cores), dtype=object)
            for i, words in enumerate(art.program.cores):  # words are wider than 64 bits
                cores[i] = list(words)
            np.savez(tmp / f"{name}_{'functional' if functional else 'timing'}.npz",
                     cores=cores, lo=lo, image=dram.bytes[lo:hi], resolution=res or 0)


def compare(rev: str, repeats: int, instructions: int, target: str) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="npusim-baseline-"))
    base = tmp / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), rev],
                   check=True, capture_output=True)
    try:
        write_programs(tmp, target)
        refused = _undecodable(base, tmp)
        if refused:
            print(f"{rev} cannot decode this tree's programs ({refused}); both trees run the "
                  f"programs {rev}'s compiler writes", flush=True)
            for old in tmp.glob("*.npz"):
                old.unlink()
            _in_tree(base, "--compile", str(tmp), target)
        workers = {"this": Worker(ROOT, instructions, target, tmp),
                   rev: Worker(base, instructions, target, tmp)}
        rows = []
        for name, _, _ in WORKLOADS:
            for mode in ("timing-only", "functional"):
                best = {}
                for _ in range(repeats):  # interleaved: both trees see the same load
                    for label, w in workers.items():
                        r = w.ask(workload=name, mode=mode)
                        if label not in best or r["cpu_s"] < best[label]["cpu_s"]:
                            best[label] = r
                if best["this"]["cycles"] != best[rev]["cycles"]:
                    print(f"ERROR: {name} {mode}: {best['this']['cycles']} cycles here, "
                          f"{best[rev]['cycles']} at {rev}", file=sys.stderr)
                    return 1
                rows.append((name, mode, best["this"], best[rev]))
                print(_row(name, mode, best["this"], best[rev], rev), flush=True)
        for w in workers.values():
            w.close()
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _in_tree(tree: Path, *args: str) -> str:
    """Run this file's helper mode `args` with PYTHONPATH at `tree`; its stdout."""
    return subprocess.run([sys.executable, str(HERE / "bench_baseline.py"), *args],
                          env=dict(os.environ, PYTHONPATH=str(tree)), cwd=tree, check=True,
                          capture_output=True, text=True).stdout.strip()


def _undecodable(tree: Path, tmp: Path) -> str:
    """'' when `tree`'s decoder reads every word of the programs in tmp, else its first error."""
    return _in_tree(tree, "--check", str(tmp))


def check_programs(programs: Path) -> None:
    """Print the first word this tree's decoder refuses (helper mode --check), else nothing."""
    from isa.codec import decode_word
    for path in sorted(programs.glob("*.npz")):
        cores = np.load(path, allow_pickle=True)["cores"]
        for words in cores:
            for word in set(words):
                try:
                    decode_word(int(word))
                except Exception as e:  # noqa: BLE001 - any refusal: REV's error types vary
                    print(f"{path.stem}: {e}")
                    return


def _row(name, mode, this, base, rev) -> str:
    ips, bips = this["instructions"] / this["cpu_s"], base["instructions"] / base["cpu_s"]
    cps, bcps = this["cycles"] / this["cpu_s"], base["cycles"] / base["cpu_s"]
    res = f"@{this['resolution']}" if this.get("resolution") else ""
    return (f"{name + res:<14} {mode:<12} {this['instructions']:>8} instr {this['cycles']:>10} "
            f"cycles | instr/s {ips:>9.0f} vs {bips:>9.0f} at {rev}: {ips / bips:5.2f}x | "
            f"cycles/s {cps:>11.0f} vs {bcps:>11.0f}")


# ---- the worker (runs with PYTHONPATH at one tree; may be an old revision) -------------------

def worker(instructions: int, target_name: str, programs: Path) -> None:
    sys.path.insert(0, str(HERE))
    import bench_sim_speed as b
    from isa.target import Target
    from npusim.memory import Dram
    from npusim.simulate import simulate
    target = Target.create(target_name)
    races = {"races": "off"} if "races" in inspect.signature(simulate).parameters else {}
    loaded = {}

    for line in sys.stdin:
        req = json.loads(line)
        functional = req["mode"] == "functional"
        res = None
        if req["workload"] == "conv-loop":
            program, dram = b.conv_layer_program(b.tiles_for(instructions)), b.fresh_dram(target)
        else:
            path = programs / f"{req['workload']}_{'functional' if functional else 'timing'}.npz"
            if path not in loaded:
                data = np.load(path, allow_pickle=True)
                loaded[path] = ([[int(w) for w in c] for c in data["cores"]], int(data["lo"]),
                                data["image"], int(data["resolution"]) or None)
            program, lo, image, res = loaded[path]
            dram = Dram(target.derived.dram_bytes)
            if functional:
                dram.bytes[lo:lo + image.size] = image
        t0 = time.process_time()
        out = simulate(program, target, dram=dram, timing_only=not functional, trace=True,
                       **races)
        cpu = time.process_time() - t0
        print(json.dumps({"instructions": out.instructions, "cycles": out.cycles,
                          "cpu_s": cpu, "resolution": res}), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(int(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
    elif sys.argv[1:2] == ["--check"]:
        check_programs(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["--compile"]:
        write_programs(Path(sys.argv[2]), sys.argv[3])
    else:
        sys.exit("run experiments/bench_sim_speed.py --baseline REV")
