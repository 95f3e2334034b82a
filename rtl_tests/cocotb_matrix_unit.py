"""cocotb tests of rtl/matrix_unit.v (the weight-stationary matrix unit: engine + conv
sequencer) against npusim: conv and gemm results bit-exact, cycles == the conv rule the Target
gives (matrix_conv; matrix_conv_wb2 on -weight-buffers=2), cfg 1."""

from __future__ import annotations

import cocotb

from isa import timing
from isa.spec import load_spec
from rtl_tests.tb.bench import UnitBench
from rtl_tests.tb.stim_matrix import gemm_case
from rtl_tests.tb.stim_matrix_conv import conv_cases, conv_directed, conv_random

UNIT = "matrix_unit"


@cocotb.test()
async def conv_directed_cases(dut):
    """One pass; passes shallower than their streams (back to back) and deeper (load-bound);
    ragged channel blocks (depths R, 1, R, 1: a deep load after a shallow one); stride and
    padding; extreme products; int32 wrap on accumulate."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.run_cases(conv_directed(bench.rng(1), sizes, R, C))
    bench.finish()


@cocotb.test()
async def conv_random_cases(dut):
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.run_cases(conv_random(bench.rng(2), sizes, R, C, count=12))
    bench.finish()


@cocotb.test()
async def conv_and_gemm_back_to_back(dut):
    """Issued without a gap, each conv, gemm and cfg takes exactly its rule's cycles: a conv's
    overlapped passes never run into the next instruction."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    rng = bench.rng(3)
    cases = conv_cases(rng, sizes, 4, 4, R + 1, C, {"kh": 2, "kw": 2}, 0)
    cases += [gemm_case(rng, sizes, 3, R, C, 1)]
    cases += conv_cases(rng, sizes, 2, 3, 2 * R, C, {"kh": 1, "kw": 2}, 1)[-1:]
    cases += [gemm_case(rng, sizes, 1, 1, 1, 0)]
    await bench.run_back_to_back(cases)
    bench.finish()


@cocotb.test()
async def checker_catches_changed_conv_rule(dut):
    """Make the model's conv rule one cycle longer: the checker must report the RTL."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    hw = bench.model.state.hw
    rule = timing.rule_name(load_spec().instruction("conv"), hw.dataflow, hw.weight_buffers)
    await bench.check_rule_caught(
        rule, conv_cases(bench.rng(4), sizes, 3, 3, R + 1, C, {"kh": 2}, 0))
