"""cocotb tests of rtl/npu_core.v: whole programs vs npusim.simulate (DRAM, cycles, trace)."""

from __future__ import annotations

import cocotb
import numpy as np

from npusim import timing
from rtl_tests.tb.bench import plusarg
from rtl_tests.tb.core_bench import CoreBench
from rtl_tests.tb.core_checker import save_agreement
from rtl_tests.tb.core_programs import get_program


async def _run(dut, name: str):
    target = plusarg("target")
    program = get_program(name)
    assembled = program.assemble()
    rng = np.random.default_rng([int(plusarg("seed", "2024")), sum(map(ord, name))])
    bench = await CoreBench.open(dut, target)
    return await bench.run(name, assembled, program.inputs(rng, assembled))


@cocotb.test()
async def run_program(dut):
    """The program named by +program: final DRAM, total cycles and every trace row equal."""
    name = plusarg("program")
    result = await _run(dut, name)
    out = cocotb.plusargs.get("agreement")
    if out:
        save_agreement(out, name, result["table"], result["row"])
    row = result["row"]
    dut._log.info(f"{name}: model {row['model_cycles']} cycles, RTL {row['rtl_cycles']}; "
                  f"{row['instructions']} trace rows, {row['trace_mismatches']} differ; "
                  f"DRAM bytes differing: {row['dram_bytes_differing']}")
    problems = list(result["mismatches"]) + ([result["dram"]] if result["dram"] else [])
    assert not problems, f"{name}: {len(problems)} difference(s); first: {problems[0]}\n" + \
        "\n".join(problems[1:10])


@cocotb.test()
async def checker_reports_first_divergence(dut):
    """Make the model's vrequant one cycle longer: the first divergence must be that vrequant,
    and the total cycles must differ by one; the DRAM still agrees."""
    original = timing.vector_requant
    timing.vector_requant = lambda hw, length: original(hw, length) + 1
    try:
        result = await _run(dut, "tiny_gemm_requant")
    finally:
        timing.vector_requant = original
    first = result["mismatches"][0]
    assert "vrequant on vector" in first and "end -1" in first, f"first divergence: {first}"
    assert result["row"]["diff"] == -1, result["row"]
    assert result["dram"] is None, result["dram"]
