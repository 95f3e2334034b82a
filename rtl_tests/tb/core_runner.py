"""Builds npu_core with Icarus for a Target and runs cocotb tests of tb/core_cocotb.py on it."""

from __future__ import annotations

import fcntl
import os
import xml.etree.ElementTree as ET
from pathlib import Path

from rtl_tests.runner import BUILD, COMMON, RTL, ROOT, SOURCES, require_icarus
from rtl_tests.tb.core_params import core_params

# the core's matrix unit wraps the matrix engine with the conv sequencer
MATRIX_UNIT_SOURCES = ["matrix_unit.v", "conv_im2col.v", "matrix_unit_os.v", *SOURCES["matrix"],
                       # the depthwise mode's unit beside matrix_unit (npu_core's DW parameter)
                       "matrix_unit_dw.v", "dwconv_unit.v", "systolic_array_dw.v"]
CORE_SOURCES = ["npu_core.v", "dispatcher.v", "unit_queue.v", "semaphores.v",
                *MATRIX_UNIT_SOURCES, *SOURCES["vector"], *SOURCES["dma"], *COMMON]


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


def run_core(target: str = "npu-tiny", testcases=None, programs=(), seed: int = 2024,
             agreement: Path | None = None) -> dict[str, str | None]:
    """Run cocotb tests (all, or the names in `testcases`) in one simulator process.

    `programs` is what the run_programs test runs. Returns {test name: None if it passed, else
    the failure text and the log's location}; a test that did not report is absent."""
    runner, out = build_core(target)
    name = "-".join(testcases) if testcases else "all"
    run_dir = out / f"run-{name}"
    for stale in run_dir.glob("*.xml"):
        stale.unlink()
    plusargs = [f"+target={target}", f"+seed={seed}", f"+programs={','.join(programs)}"]
    if agreement:
        plusargs.append(f"+agreement={agreement}")
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    results = None
    try:
        results = runner.test(
            hdl_toplevel="npu_core", test_module="rtl_tests.tb.core_cocotb",
            testcase=list(testcases) if testcases else None, build_dir=out, test_dir=run_dir,
            extra_env=env, plusargs=plusargs, log_file=run_dir / "sim.log")
    except SystemExit:  # how the cocotb runner reports a failed test under pytest
        pass
    return _outcomes(results or _newest_results(run_dir), run_dir / "sim.log")


def _newest_results(run_dir: Path) -> Path | None:
    found = sorted(run_dir.glob("*.xml"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def _outcomes(results: Path | None, log: Path) -> dict[str, str | None]:
    if results is None or not Path(results).exists():
        return {}
    out = {}
    for case in ET.parse(results).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        out[case.get("name")] = None if failure is None else \
            f"{failure.get('message') or failure.text or 'failed'}\nlog: {log}"
    return out
