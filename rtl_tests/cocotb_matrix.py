"""cocotb tests of rtl/matrix_engine.v (matrix_engine_os.v on -dataflow=os) against npusim: gemm
results bit-exact, cycles == the gemm rule of the Target's dataflow (matrix_gemm, matrix_gemm_os)."""

from __future__ import annotations

import cocotb

from isa.codec import encode_fields
from isa import timing
from rtl_tests.tb.bench import UnitBench
from isa.spec import load_spec
from rtl_tests.tb.stim_matrix import DIRECTED, RANDOM, gemm_case, gemm_chain, gemm_wt_cases

UNIT = "matrix"


def _dataflow(bench: UnitBench) -> str:
    return bench.model.state.hw.dataflow


@cocotb.test()
async def gemm_directed_cases(dut):
    """Corner cases: k=1, m=1, n=1, n=C, k=R (os: k > R, folds of m), extreme int8 products,
    int32 wrap on accumulate."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.run_cases(DIRECTED[_dataflow(bench)](bench.rng(1), sizes, R, C))
    bench.finish()


@cocotb.test()
async def gemm_random_cases(dut):
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.run_cases(RANDOM[_dataflow(bench)](bench.rng(2), sizes, R, C, count=30))
    bench.finish()


@cocotb.test()
async def gemm_transposed_cases(dut):
    """wt = 1 (the stationary tile stored n x k, as K of Q.K^T): results and matrix_gemm cycles
    as for wt = 0, on square, ragged, k = 1, n = 1 and random shapes."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.run_cases(gemm_wt_cases(bench.rng(5), sizes, R, C, count=12))
    bench.finish()


@cocotb.test()
async def gemm_transposed_back_to_back(dut):
    """wt = 1 and wt = 0 alternating without a gap: the mode is latched per instruction."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    rng = bench.rng(6)
    await bench.run_back_to_back([gemm_case(rng, sizes, 2 + i, R, max(1, C - 1), i % 2, wt=1 - i % 2)
                                  for i in range(4)])
    bench.finish()


@cocotb.test()
async def gemm_back_to_back(dut):
    """Issued without a gap, each gemm still takes exactly its rule's cycles (ready with done)."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    await bench.run_back_to_back(gemm_chain(bench.rng(3), sizes, R, C, _dataflow(bench)))
    bench.finish()


@cocotb.test()
async def non_gemm_opcode_is_flagged(dut):
    """An opcode the engine does not run finishes in one cycle with `illegal` set."""
    bench = await UnitBench.open(dut, UNIT)
    await bench.check_flagged(encode_fields("vadd", len=1))
    bench.finish()


@cocotb.test()
async def checker_catches_changed_cycle_rule(dut):
    """Make the model's gemm rule one cycle longer: the checker must report the RTL."""
    bench = await UnitBench.open(dut, UNIT)
    sizes, R, C = bench.geometry()
    rule = timing.rule_name(load_spec().instruction("gemm"), _dataflow(bench))
    await bench.check_rule_caught(rule, [gemm_case(bench.rng(4), sizes, 3, R, C, 0)])
