"""cocotb tests of rtl/vector_unit.v against npusim: every VECTOR op bit-exact, cycles == the rules."""

from __future__ import annotations

import cocotb

from isa.codec import encode_fields
from rtl_tests.tb.bench import UnitBench
from rtl_tests.tb.stim_vector import (VectorStim, requant_bias_directed, requant_bias_random,
                                      transformer_directed, transformer_random,
                                      vector_directed, vector_random)

UNIT = "vector"


@cocotb.test()
async def vector_directed_cases(dut):
    """Saturation both ways, rounding ties, negative values, len % L != 0, channels < L,
    in-place, padding windows (max never picks padding), all-padding windows."""
    bench = await UnitBench.open(dut, UNIT)
    await bench.run_cases(vector_directed(bench.rng(1), bench.model.state.sizes, bench.params["L"]))
    bench.finish()


@cocotb.test()
async def vector_random_cases(dut):
    bench = await UnitBench.open(dut, UNIT)
    await bench.run_cases(vector_random(bench.rng(2), bench.model.state.sizes, bench.params["L"],
                                        count=40))
    bench.finish()


@cocotb.test()
async def requant_bias_cases(dut):
    """vrequant bias=1 ((bias, mult, shift) triples): the saturating bias add at the int32
    edges, ties after it, channels < L and > L; then random ones. Its one extra stage is
    the rule's (P + 3 + ceil(len / L))."""
    bench = await UnitBench.open(dut, UNIT)
    await bench.run_cases(requant_bias_directed(bench.rng(8), bench.model.state.sizes,
                                                bench.params["L"]))
    await bench.run_cases(requant_bias_random(bench.rng(9), bench.model.state.sizes,
                                              bench.params["L"], count=20))
    bench.finish()


@cocotb.test()
async def requant_bias_back_to_back(dut):
    """Issued without a gap: bias=1 then bias=0 then bias=1 then an elementwise op, each
    exactly its rule, and no result of the longer pipeline collides with the next's."""
    bench = await UnitBench.open(dut, UNIT)
    s = VectorStim(bench.rng(10), bench.model.state.sizes)
    cases = [s.requant(7, 3, "obuf", "abuf", zp=1, relu=1, biases=True),
             s.requant(6, 2, "obuf", "abuf", zp=-2, relu=0),
             s.requant(9, 5, "ibuf", "abuf", zp=0, relu=0, biases=True),
             s.requant(1, 1, "obuf", "abuf", zp=4, relu=1, biases=True),
             s.op("vadd", 5, "obuf", "ibuf", "wbuf")]
    await bench.run_back_to_back(cases)
    bench.finish()


@cocotb.test()
async def transformer_directed_cases(dut):
    """vrmax/vrsum/vrsub/vrmul on rows ending mid-chunk, saturation and ties; vexp/vrecip/
    vrsqrt of 0, 1, the int32 extremes, negatives and very negative exp inputs."""
    bench = await UnitBench.open(dut, UNIT)
    await bench.run_cases(transformer_directed(bench.rng(5), bench.model.state.sizes,
                                               bench.params["L"]))
    bench.finish()


@cocotb.test()
async def transformer_random_cases(dut):
    bench = await UnitBench.open(dut, UNIT)
    await bench.run_cases(transformer_random(bench.rng(6), bench.model.state.sizes,
                                             bench.params["L"], count=40))
    bench.finish()


@cocotb.test()
async def transformer_back_to_back(dut):
    """Issued without a gap: each of a Softmax-like chain takes exactly its rule, and a
    delayed (vexp) result never collides with the next instruction's writes."""
    bench = await UnitBench.open(dut, UNIT)
    s = VectorStim(bench.rng(7), bench.model.state.sizes)
    cases = [s.row("vrmax", 2, 5, "abuf", "ibuf"), s.row("vrsub", 2, 5, "abuf", "ibuf", "abuf"),
             s.op("vexp", 10, "abuf", "abuf", in_frac=4, out_frac=15),
             s.op("vrsqrt", 3, "abuf", "abuf", in_frac=1, out_frac=9),
             s.row("vrsum", 2, 5, "abuf", "abuf"), s.op("vrecip", 2, "abuf", "abuf", out_frac=20),
             s.row("vrmul", 2, 5, "obuf", "abuf", "abuf", shift=7),
             s.op("vadd", 5, "obuf", "ibuf", "wbuf")]
    await bench.run_back_to_back(cases)
    bench.finish()


@cocotb.test()
async def vector_back_to_back(dut):
    """Issued without a gap (cfg, pool, requant, elementwise): each takes exactly its rule."""
    bench = await UnitBench.open(dut, UNIT)
    s = VectorStim(bench.rng(4), bench.model.state.sizes)
    cases = [s.op("vadd", 7, "obuf", "ibuf", "wbuf"),
             *s.pool("vmaxpool", 4, 4, 3, (2, 2), (2, 2), (1, 1, 0, 0), "ibuf", "abuf"),
             s.requant(6, 2, "obuf", "abuf", zp=1, relu=1),
             s.op("vrelu", 5, "abuf", "abuf"), s.op("vshr", 3, "obuf", "abuf", shift=2)]
    await bench.run_back_to_back(cases)
    bench.finish()


@cocotb.test()
async def cfg_of_a_foreign_register_is_flagged(dut):
    """A conv_* register is the matrix unit's: the vector unit takes 1 cycle and flags it."""
    bench = await UnitBench.open(dut, UNIT)
    await bench.driver.issue(encode_fields("cfg", unit="vector", reg="conv_kh", value=3))
    illegal_seen = int(dut.illegal.value)
    assert await bench.monitor.next_cycles() == 1
    assert illegal_seen == 1, "illegal was not raised for cfg of conv_kh"
    bench.finish()


@cocotb.test()
async def checker_catches_changed_cycle_rule(dut):
    """Make the model's vector_requant rule one cycle longer: the checker must report the RTL."""
    bench = await UnitBench.open(dut, UNIT)
    stim = VectorStim(bench.rng(3), bench.model.state.sizes)
    await bench.check_rule_caught("vector_requant",
                                  [stim.requant(5, 2, "obuf", "abuf", zp=0, relu=0)])
