"""Builds npu_core with Icarus for a Target and runs one cocotb test of tb/core_cocotb.py on it."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from rtl_tests.runner import BUILD, COMMON, RTL, ROOT, SOURCES, require_icarus
from rtl_tests.tb.core_params import core_params

CORE_SOURCES = ["npu_core.v", "dispatcher.v", "unit_queue.v", "semaphores.v", "matrix_unit.v",
                "conv_im2col.v", *SOURCES["matrix"], *SOURCES["vector"], *SOURCES["dma"],
                *COMMON]


def core_build_dir(target: str) -> Path:
    return BUILD / f"core-{target.replace(' ', '_')}"


def build_core(target: str):
    """(runner, build dir): compiled once per Target (the runner skips an up-to-date build);
    a lock keeps parallel pytest workers from building the same directory together."""
    require_icarus()
    from cocotb_tools.runner import get_runner
    out = core_build_dir(target)
    out.mkdir(parents=True, exist_ok=True)
    runner = get_runner("icarus")
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        runner.build(
            sources=[RTL / s for s in CORE_SOURCES], includes=[RTL], hdl_toplevel="npu_core",
            parameters=core_params(target), build_dir=out, timescale=("1ns", "1ps"),
            build_args=["-g2005", "-Wall"])
    return runner, out


def run_core(testcase: str, target: str = "npu-tiny", program: str | None = None,
             seed: int = 2024, agreement: Path | None = None) -> Path:
    """Run cocotb test `testcase` (with +program) on the core; fail with the log's location."""
    from cocotb_tools.runner import get_results
    runner, out = build_core(target)
    run_dir = out / f"run-{testcase}-{program or 'none'}-{os.getpid()}"
    plusargs = [f"+target={target}", f"+seed={seed}"]
    if program:
        plusargs.append(f"+program={program}")
    if agreement:
        plusargs.append(f"+agreement={agreement}")
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    try:
        results = runner.test(
            hdl_toplevel="npu_core", test_module="rtl_tests.tb.core_cocotb", testcase=testcase,
            build_dir=out, test_dir=run_dir, extra_env=env, plusargs=plusargs,
            log_file=run_dir / "sim.log")
        total, failed = get_results(results)
    except SystemExit:  # how the cocotb runner reports a failed test under pytest
        total, failed = 1, 1
    if not (total > 0 and failed == 0):
        raise AssertionError(f"{testcase} ({program or '-'}) failed on the RTL core for "
                             f"{target}; log: {run_dir / 'sim.log'}\n{_failure_lines(run_dir)}")
    return run_dir


def _failure_lines(run_dir: Path, keep: int = 12) -> str:
    """The log lines that say what failed (assertions, errors), for the pytest report."""
    log = run_dir / "sim.log"
    if not log.exists():
        return "(no simulator log)"
    lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines()
             if "Error" in ln or "assert" in ln or "FAIL" in ln]
    return "\n".join(lines[-keep:])
