"""Builds a unit's testbench with Icarus and runs its cocotb tests: what each pytest function calls."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from npusim.hw.rtl_params import AREA_SOURCES, DWCONV_SOURCES, UNIT_SOURCES, tb_params

ROOT = Path(__file__).resolve().parents[1]
RTL = ROOT / "rtl"
HDL = Path(__file__).resolve().parent / "hdl"
BUILD = ROOT / "sim_build" / "rtl_tests"   # git-ignored

# what each unit's testbench compiles from rtl/: the unit, and for the DMA its DRAM model
SOURCES = {u: files + (["dram_model.v"] if u == "dma" else []) for u, files in UNIT_SOURCES.items()}
SOURCES["dwconv"] = DWCONV_SOURCES  # the matrix unit's depthwise mode, a testbench of its own
SOURCES["matrix_unit"] = AREA_SOURCES["matrix_unit"]  # the whole ws matrix unit (conv too)
COMMON = ["npu_buffers.v", "buffer_mem.v"]
TB_COMMON = ["tb_probe.v"]
DRAM_BYTES = 64 * 1024  # the DRAM model's size in simulation (the Target's is far larger)


def require_icarus() -> None:
    if shutil.which("iverilog") is None or shutil.which("vvp") is None:
        pytest.skip("Icarus Verilog (iverilog, vvp) is not installed; RTL co-simulation skipped "
                    "(Debian: apt-get install iverilog)")


def build_dir(unit: str, target: str) -> Path:
    return BUILD / f"{unit}-{target.replace(' ', '_')}"


def run_unit(unit: str, target: str = "npu-tiny", testcase=None, seed: int = 2024,
             env: dict | None = None) -> Path:
    """Build tb_<unit> for `target`, run the cocotb tests of cocotb_<unit>; return the build dir.
    `env` adds simulator environment (e.g. {"COCOTB_ENABLE_PROFILING": "1"}).

    Fails with the simulator's summary when any cocotb test fails."""
    require_icarus()
    from cocotb_tools.runner import get_results, get_runner

    params = tb_params(unit, target, dram_bytes=DRAM_BYTES)
    out = build_dir(unit, target)
    agreement = out / "agreement.csv"
    agreement.unlink(missing_ok=True)
    runner = get_runner("icarus")
    runner.build(sources=[HDL / f"tb_{unit}.v"] + [HDL / s for s in TB_COMMON]
                 + [RTL / s for s in SOURCES[unit] + COMMON],
                 includes=[RTL, HDL], hdl_toplevel=f"tb_{unit}", parameters=params, build_dir=out,
                 timescale=("1ns", "1ps"), build_args=["-g2005", "-Wall"])
    # the simulator's Python gets this process's sys.path (cocotb's runner), so rtl_tests
    # imports there as it does here: run from the repository root, e.g. through pytest
    results = runner.test(hdl_toplevel=f"tb_{unit}", test_module=f"rtl_tests.cocotb_{unit}",
                          testcase=testcase, build_dir=out, test_dir=out, extra_env=env or {},
                          plusargs=[f"+target={target}", f"+seed={seed}",
                                    f"+dram_bytes={DRAM_BYTES}", f"+agreement={agreement}"])
    total, failed = get_results(results)
    assert total > 0 and failed == 0, (f"{failed} of {total} cocotb tests of {unit} failed on "
                                       f"{target}; log: {out}")
    return out
