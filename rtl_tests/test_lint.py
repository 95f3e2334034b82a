"""Verilator -Wall lint of every RTL unit, at the sizes of each npu tag (waivers are in the RTL,
each with its reason)."""

import shutil
import subprocess

import pytest

from npusim.hw.rtl_params import (DWCONV_SOURCES, MATRIX_ENGINES, UNIT_SOURCES, UNIT_TOPS, UNITS,
                                  unit_params)
from rtl_tests.runner import COMMON, RTL

TARGETS = ("npu-tiny", "npu-edge", "npu-server")


def lint(top: str, sources: list[str], params: dict) -> subprocess.CompletedProcess:
    if shutil.which("verilator") is None:
        pytest.skip("verilator is not installed; lint skipped (Debian: apt-get install verilator)")
    cmd = ["verilator", "--lint-only", "-Wall", f"-I{RTL}", "--top-module", top,
           *[f"-G{k}={v}" for k, v in params.items()], *[str(RTL / s) for s in sources]]
    # a guard against a hung verilator, not a speed test: npu-server's core (a 32x32 depthwise
    # unit) lints in ~36 s alone and several times that beside another test worker
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("unit", UNITS)
def test_unit_lints_clean(unit, target):
    result = lint(UNIT_TOPS[unit], UNIT_SOURCES[unit], unit_params(unit, target))
    assert result.returncode == 0, f"verilator -Wall on {UNIT_TOPS[unit]} ({target}):\n{result.stderr}"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("top", [MATRIX_ENGINES["os"], "matrix_unit_os"])
def test_output_stationary_matrix_lints_clean(target, top):
    sources = UNIT_SOURCES["matrix"] + (["matrix_unit_os.v"] if top == "matrix_unit_os" else [])
    result = lint(top, sources, unit_params("matrix", target))
    assert result.returncode == 0, f"verilator -Wall on {top} ({target}):\n{result.stderr}"


@pytest.mark.parametrize("target", TARGETS)
def test_depthwise_mode_unit_lints_clean(target):
    result = lint("dwconv_unit", DWCONV_SOURCES, unit_params("dwconv", target))
    assert result.returncode == 0, f"verilator -Wall on dwconv_unit ({target}):\n{result.stderr}"


@pytest.mark.parametrize("top,sources", [("npu_buffers", COMMON), ("dram_model", ["dram_model.v"])])
def test_memories_lint_clean(top, sources):
    result = lint(top, sources, {})
    assert result.returncode == 0, f"verilator -Wall on {top}:\n{result.stderr}"
