"""cocotb tests of rtl/dwconv_unit.v (the matrix unit's depthwise mode) against npusim on a
Target with -depthwise-mode=1: dwconv results bit-exact, cycles == matrix_dwconv (cfg: 1)."""

from __future__ import annotations

import cocotb

from isa.codec import encode_fields
from rtl_tests.tb.bench import UnitBench
from rtl_tests.tb.stim_dwconv import dwconv_cases, dwconv_directed, dwconv_random

UNIT = "dwconv"


@cocotb.test()
async def dwconv_directed_cases(dut):
    """Every channel column, one channel, padding on each side, stride, dilation, taps past
    the array rows (several passes), extreme products, int32 wrap on accumulate."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.run_cases(dwconv_directed(bench.rng(1), sizes, R, C))
    bench.finish()


@cocotb.test()
async def dwconv_random_cases(dut):
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.run_cases(dwconv_random(bench.rng(2), sizes, R, C, count=16))
    bench.finish()


@cocotb.test()
async def dwconv_back_to_back(dut):
    """Issued without a gap, each dwconv (and cfg) takes exactly its rule's cycles."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    rng = bench.rng(3)
    cases = dwconv_cases(rng, sizes, 5, 5, C, {"kh": 3, "kw": 3, "pad_top": 1}, 0)
    cases += dwconv_cases(rng, sizes, 4, 6, 2, {"kh": 2, "kw": 3, "stride_w": 2}, 1)[-1:]
    await bench.run_back_to_back(cases)
    bench.finish()


@cocotb.test()
async def other_opcode_is_flagged(dut):
    """An opcode the unit does not run finishes in one cycle with `illegal` set."""
    bench = await UnitBench.open(dut, UNIT)
    await bench.check_flagged(encode_fields("vadd", len=1))
    bench.finish()


@cocotb.test()
async def checker_catches_changed_cycle_rule(dut):
    """Make the model's dwconv rule one cycle longer: the checker must report the RTL."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.check_rule_caught(
        "matrix_dwconv", dwconv_cases(bench.rng(4), sizes, 3, 3, C, {"kh": 2, "kw": 2}, 0))
