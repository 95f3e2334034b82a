"""cocotb tests of rtl/npu_core.v: whole programs vs npusim.simulate (DRAM, cycles, trace)."""

from __future__ import annotations

import cocotb
import numpy as np
import pytest

from isa.codec import decode_word, encode_fields
from isa.target import Target
from isa import timing
from npusim.faults import IllegalInstructionError
from npusim.simulate import simulate
from rtl_tests.tb.bench import plusarg
from rtl_tests.tb.core_bench import CoreBench
from rtl_tests.tb.core_checker import save_agreement
from rtl_tests.tb.core_programs import get_program


async def _run(bench: CoreBench, name: str) -> dict:
    rng = np.random.default_rng([int(plusarg("seed", "2024")), sum(map(ord, name))])
    return await bench.run(name, get_program(name).prepare(rng, bench.target))


@cocotb.test()
async def run_programs(dut):
    """Each program of +programs (comma-separated), one after the other: final DRAM, total
    cycles, every dispatch, start and end equal; the agreement rows go to +agreement."""
    names = [n for n in plusarg("programs", "").split(",") if n]
    assert names, "no programs: pass +programs=name,name (see tb/core_programs.py)"
    bench = await CoreBench.open(dut, plusarg("target"))
    out = cocotb.plusargs.get("agreement")
    failed = []
    for name in names:
        result = await _run(bench, name)
        row = result["row"]
        if out:
            save_agreement(out, name, result["table"], row)
        dut._log.info(f"{name}: model {row['model_cycles']} cycles, RTL {row['rtl_cycles']}; "
                      f"{row['instructions']} trace rows, {row['trace_mismatches']} differ; "
                      f"DRAM bytes differing: {row['dram_bytes_differing']}")
        problems = list(result["mismatches"]) + ([result["dram"]] if result["dram"] else [])
        if problems:
            failed.append(f"{name}: {len(problems)} difference(s); first: {problems[0]}")
    assert not failed, "\n".join(failed)


@cocotb.test()
async def checker_reports_first_divergence(dut):
    """Make the model's vrequant one cycle longer: the first divergence must be that vrequant,
    and the total cycles must differ by one; the DRAM still agrees."""
    bench = await CoreBench.open(dut, plusarg("target"))
    original = timing.RULES["vector_requant"]
    with timing.override("vector_requant", lambda hw, **ops: original(hw, **ops) + 1):
        result = await _run(bench, "tiny_gemm_requant")
    first = result["mismatches"][0]
    assert "vrequant on vector" in first and "end -1" in first, f"first divergence: {first}"
    assert result["row"]["diff"] == -1, result["row"]
    assert result["dram"] is None, result["dram"]


@cocotb.test()
async def faults_stop_the_core_where_the_model_faults(dut):
    """A load on a DMA channel the core lacks faults at dispatch, a wait on a semaphore past
    the Target's count faults in its unit: npusim raises IllegalInstructionError for both."""
    target = plusarg("target")
    t = Target.create(target)
    bench = await CoreBench.open(dut, target)
    cases = [
        ("missing channel", [encode_fields("load", chan=0, rows=1, cols=4, stride=4),
                             encode_fields("load", chan=t.dma_engines, rows=1, cols=4, stride=4)],
         1),
        ("semaphore past the count", [encode_fields("nop"),
                                      encode_fields("wait", unit="matrix",
                                                                    sem=t.semaphores)], 1)]
    for what, words, index in cases:
        with pytest.raises(IllegalInstructionError) as model_fault:
            simulate([decode_word(w) for w in words], target=target)
        assert model_fault.value.index == index, (what, model_fault.value.index)
        bench.load(words, np.zeros(0, np.uint8))
        monitor = await bench.execute(max_cycles=50)
        assert monitor.fault_cycle is not None, f"{what}: the RTL core did not fault"
        # the sticky flag is registered at the end of the cycle in which the model faults
        assert monitor.fault_cycle == model_fault.value.cycle + 1, \
            (what, monitor.fault_cycle, model_fault.value.cycle)
        assert monitor.done_cycle is None, f"{what}: the RTL core finished at {monitor.done_cycle}"
