"""One unit under test: clock, driver, monitor, memory backdoor, the model and the checker, wired."""

from __future__ import annotations

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly

from isa import timing

from npusim.hw.rtl_params import tb_params
from rtl_tests.tb.backdoor import BuffersBackdoor, MemoryBackdoor
from rtl_tests.tb.checker import Checker
from rtl_tests.tb.driver import InstrDriver
from rtl_tests.tb.model import NpuModel
from rtl_tests.tb.monitor import CycleMonitor

# Memories outlive a cocotb test (the simulation goes on), so their model must too.
_MODELS: dict[str, NpuModel] = {}


def plusarg(name: str, default: str | None = None) -> str:
    value = cocotb.plusargs.get(name, default)
    if value is None:
        raise RuntimeError(f"plusarg +{name}=... is required (rtl_tests/runner.py passes it)")
    return str(value)


def built_params(dut, want: dict, design: str, target: str, runner: str) -> dict:
    """The sizes the design was built with, which must be the Target's: model and RTL agree by
    construction."""
    got = {name: int(getattr(dut, name).value) for name in want}
    if got != want:
        raise AssertionError(f"{design} built with {got}, but target {target} gives {want}; "
                             f"rebuild ({runner} passes the Target's parameters)")
    return got


class UnitBench:
    """Start with `await UnitBench.open(dut, unit)`; `run(word, regions)` checks one instruction."""

    def __init__(self, dut, unit: str):
        self.dut = dut
        self.unit = unit
        self.target = plusarg("target")
        want = tb_params(unit, self.target, dram_bytes=int(plusarg("dram_bytes", "4096")))
        self.params = built_params(dut, want, "design", self.target, "runner.run_unit")
        dram_bytes = self.params.get("DRAM_BYTES", 4096)
        if unit not in _MODELS:
            _MODELS[unit] = NpuModel(self.target, dram_bytes)
        self.model = _MODELS[unit]
        self.buffers = BuffersBackdoor(dut.u_bufs)
        self.dram = (MemoryBackdoor(dut.u_dram.mem, 8, signed=False)
                     if "DRAM_BYTES" in self.params else None)
        self.checker = Checker(unit, self.target)
        self.driver = InstrDriver(dut)
        self.monitor: CycleMonitor | None = None

    @classmethod
    async def open(cls, dut, unit: str) -> "UnitBench":
        bench = cls(dut, unit)
        Clock(dut.clk, 10, unit="ns").start()
        await bench.driver.reset()
        bench.model.reset_registers()
        bench.monitor = CycleMonitor(dut)
        return bench

    # ---- memories: every write goes to the model and the RTL alike
    def poke(self, space: str, addr: int, values) -> None:
        """Write a buffer's elements, or DRAM bytes (space "dram")."""
        if space == "dram":
            self.model.dram.bytes[addr:addr + len(values)] = np.asarray(values, dtype=np.uint8)
            self.dram.write(addr, values)
        else:
            self.model.poke(space, addr, values)
            self.buffers.write(space, addr, values)

    def compare(self, instr, space: str, addr: int, count: int) -> bool:
        if space == "dram":
            expected = self.model.dram.bytes[addr:addr + count]
            actual = self.dram.read(addr, count)
        else:
            expected = self.model.peek(space, addr, count)
            actual = self.buffers.read(space, addr, count)
        return self.checker.data(instr, f"{space}@{addr}", expected, actual)

    async def run(self, word: int, regions=()) -> int:
        """Execute `word` on the model and the RTL; check cycles and each (space, addr, count)."""
        instr, info = self.model.run(word)
        await self.driver.issue(word)
        rtl_cycles = await self.monitor.next_cycles()
        self.checker.cycles(instr, info.cycles, rtl_cycles)
        for space, addr, count in regions:
            self.compare(instr, space, addr, count)
        return rtl_cycles

    async def run_cases(self, cases) -> None:
        """Poke each Case's operands, run it, check its regions."""
        for case in cases:
            for space, addr, values in case.pokes:
                self.poke(space, addr, values)
            await self.run(case.word, case.regions)

    async def run_back_to_back(self, cases) -> None:
        """Issue every case without a gap (each starts at the edge the previous one ends) and
        check each as it finishes; issue-to-issue gaps must equal the model's cycles."""
        for case in cases:
            for space, addr, values in case.pokes:
                self.poke(space, addr, values)
        starts: list[int] = []

        async def issue_all():
            for case in cases:
                await self.driver.issue(case.word)
                starts.append(self.monitor.cycle)

        issuer = cocotb.start_soon(issue_all())
        model_cycles = []
        for case in cases:
            instr, info = self.model.run(case.word)
            self.checker.cycles(instr, info.cycles, await self.monitor.next_cycles())
            model_cycles.append(info.cycles)
            for region in case.regions:
                self.compare(instr, *region)
        await issuer
        gaps = [b - a for a, b in zip(starts, starts[1:])]
        assert gaps == model_cycles[:-1], f"issue-to-issue gaps {gaps} != model cycles {model_cycles}"

    def geometry(self) -> tuple[dict, int, int]:
        """The buffers' sizes and the array's rows and columns (R, C) the design was built with:
        what a matrix unit's stimulus is shaped by."""
        return self.model.state.sizes, self.params["R"], self.params["C"]

    async def check_flagged(self, word: int) -> None:
        """`word` (an opcode or register the unit does not run) finishes in one cycle, with
        `illegal` and `done` high in the cycle after the unit took it."""
        await self.driver.issue(word)
        await ReadOnly()
        assert int(self.dut.illegal.value) == 1 and int(self.dut.done.value) == 1
        assert await self.monitor.next_cycles() == 1

    async def check_rule_caught(self, rule: str, cases) -> None:
        """Run `cases` with the model's cycle `rule` one cycle longer: the checker must report
        the RTL, as exactly one cycle mismatch of -1 (then finish without failing the test)."""
        original = timing.RULES[rule]
        with timing.override(rule, lambda hw, **ops: original(hw, **ops) + 1):
            await self.run_cases(cases)
        self.check_mismatches([("cycles", -1)])

    def check_mismatches(self, want: list[tuple[str, int]]) -> None:
        """The checker reported exactly these (kind, model - RTL) mismatches; finish the test
        without failing it on them (a test of the checker)."""
        kinds = [(m.kind, self.checker.rows[m.index]["diff"]) for m in self.checker.mismatches]
        assert kinds == want, f"checker reported {kinds}, expected {want}"
        self.finish(strict=False)

    def rng(self, salt: int) -> np.random.Generator:
        """A generator seeded by +seed and the test's salt: runs repeat exactly."""
        return np.random.default_rng([int(plusarg("seed", "2024")), salt])

    def finish(self, strict: bool = True) -> None:
        """Save the agreement rows; fail the cocotb test on any mismatch."""
        out = cocotb.plusargs.get("agreement")
        if out and strict:
            self.checker.save(out)
        self.dut._log.info(self.checker.report())
        if strict:
            self.checker.assert_clean()
