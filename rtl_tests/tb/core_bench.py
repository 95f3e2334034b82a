"""The RTL core running one whole program beside npusim.simulate: load, reset, run, compare."""

from __future__ import annotations

import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, First, NextTimeStep, Timer

from isa.spec import load_spec
from isa.target import Target
from npusim.memory import Dram
from npusim.simulate import simulate
from rtl_tests.tb.backdoor import BUFFER_INSTANCES, MemoryBackdoor
from rtl_tests.tb.bench import built_params
from rtl_tests.tb.core_checker import compare_dram, compare_traces, program_row
from rtl_tests.tb.core_monitor import CoreTraceMonitor
from rtl_tests.tb.core_params import CORE_UNITS, core_params

CLOCK_NS = 10


class CoreBench:
    """Open with `await CoreBench.open(dut, target)`, then `result = await bench.run(...)`."""

    # Memories outlive a cocotb test (the simulation goes on): the first program of a
    # simulator process finds them zeroed by their initial blocks, later ones clear them.
    _dirty = False

    def __init__(self, dut, target: str):
        self.dut = dut
        self.target = target
        want = core_params(target, dram_bytes=int(dut.DRAM_BYTES.value))
        self.params = built_params(dut, want, "npu_core", target, "core_runner")
        self.index_bits = int(dut.IW.value)
        self.dram = MemoryBackdoor(dut.u_dram.mem, 8, signed=False)
        self.memories = [dut.u_dram.mem] + [getattr(dut.u_bufs, inst).mem
                                            for inst in BUFFER_INSTANCES.values()]

    @classmethod
    async def open(cls, dut, target: str) -> "CoreBench":
        bench = cls(dut, target)
        dut.rst.value = 1
        dut.prog_len.value = 0
        Clock(dut.clk, CLOCK_NS, unit="ns").start()
        await FallingEdge(dut.clk)  # after the memories' initial zeroing
        return bench

    def load(self, words: list[int], dram_image: np.ndarray) -> None:
        """Hold the core in reset; zero the memories, then the instruction words into imem and
        the nonzero DRAM bytes into the DRAM model."""
        self.dut.rst.value = 1
        if CoreBench._dirty:
            for mem in self.memories:  # as npusim starts: DRAM and buffers all zero
                for i in range(len(mem)):
                    mem[i].value = 0
        CoreBench._dirty = True
        if len(words) > self.params["IMEM_DEPTH"]:
            raise ValueError(f"program of {len(words)} words does not fit IMEM_DEPTH="
                             f"{self.params['IMEM_DEPTH']}; hint: split it")
        spec = load_spec()
        # (a 1.1 field of its own, vrequant's bias, the RTL does read: not in this mask)
        masks = {i.opcode: (i.mnemonic, i.split_high_mask) for i in spec.instructions}
        op = (1 << spec.opcode_width) - 1
        for i, w in enumerate(words):
            # the units read split fields' 1.0 parts (rtl/npu_isa.vh): a high part set is lost
            name, mask = masks.get((int(w) >> spec.opcode_lsb) & op, ("?", 0))
            if int(w) & mask:
                raise ValueError(f"word {i} ({name}) sets a split field's ISA "
                                 f"{spec.version} high part; the RTL reads ISA "
                                 f"{spec.base_version} widths; hint: a smaller tile or Target")
            self.dut.imem[i].value = int(w)
        self.dut.prog_len.value = len(words)
        for addr in np.flatnonzero(dram_image[:self.params["DRAM_BYTES"]]).tolist():
            self.dram.mem[addr].value = int(dram_image[addr])

    async def execute(self, max_cycles: int) -> CoreTraceMonitor:
        """Release reset and run until done, a fault, or max_cycles."""
        dut = self.dut
        monitor = CoreTraceMonitor(dut, CORE_UNITS, self.index_bits)
        for _ in range(2):
            await FallingEdge(dut.clk)
        dut.rst.value = 0
        await First(monitor.finished.wait(), Timer((max_cycles + 4) * CLOCK_NS, unit="ns"))
        await NextTimeStep()
        monitor.stop()
        return monitor

    async def run(self, name: str, case, slack: int = 4) -> dict:
        """Run a core_programs.Case on the model and the RTL; the summary row plus the details.
        Both start from the same DRAM (the case's writes); the RTL's final DRAM must equal the
        model's, and the ranges the case expects must hold what its reference says."""
        program = case.program
        dram = Dram(Target.create(self.target).derived.dram_bytes)
        for addr, array in case.dram_writes:
            dram.write(addr, array)
        self.load(program.cores[0], dram.bytes.copy())
        model = simulate(program, target=self.target, dram=dram)
        monitor = await self.execute(max_cycles=slack * model.cycles + 100)
        if monitor.fault_cycle is not None:
            raise AssertionError(f"{name}: the RTL core raised `fault` at cycle "
                                 f"{monitor.fault_cycle} (the model ran it cleanly)")
        table, mismatches = compare_traces(name, model.trace, monitor.rows, monitor.dispatched)
        rtl_dram = self.dram.read(0, self.params["DRAM_BYTES"])
        dram_diff, dram_text = compare_dram(model.dram.bytes, rtl_dram)
        if monitor.done_cycle is None:
            mismatches.insert(0, f"the RTL did not finish within {slack * model.cycles + 100} "
                                 f"cycles (model: {model.cycles})")
        elif monitor.done_cycle != model.cycles:
            mismatches.append(f"total cycles: model {model.cycles}, RTL {monitor.done_cycle}")
        for what, addr, array in case.expected:
            want = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
            bad = np.flatnonzero(rtl_dram[addr:addr + want.size] != want)
            if bad.size:
                mismatches.append(f"{what}: {bad.size} of {want.size} bytes differ in the RTL "
                                  f"DRAM, first at {addr + int(bad[0]):#x}")
        row = program_row(name, self.target, model.trace, model.cycles, monitor.done_cycle,
                          mismatches, dram_diff)
        return {"row": row, "table": table, "mismatches": mismatches, "dram": dram_text}
