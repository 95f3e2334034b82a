"""Driver: puts one instruction word on a unit's start/instr port when the unit is ready."""

from __future__ import annotations

from cocotb.triggers import FallingEdge
from cocotb.utils import get_sim_time


class InstrDriver:
    """Inputs change on falling edges, so every rising edge samples settled values."""

    def __init__(self, dut):
        self.dut = dut
        self._edge = None  # sim time of the falling edge the last issue returned at
        dut.start.value = 0
        dut.instr.value = 0

    async def issue(self, word: int) -> None:
        """Hold start for exactly the one rising edge at which the unit takes the word. Called
        again at once, the next word goes out at the same falling edge: no gap cycle."""
        dut = self.dut
        if get_sim_time() != self._edge:
            await FallingEdge(dut.clk)
        while not int(dut.ready.value):
            await FallingEdge(dut.clk)
        dut.instr.value = word
        dut.start.value = 1
        await FallingEdge(dut.clk)
        self._edge = get_sim_time()
        dut.start.value = 0

    async def reset(self, cycles: int = 2) -> None:
        dut = self.dut
        dut.rst.value = 1
        for _ in range(cycles):
            await FallingEdge(dut.clk)
        dut.rst.value = 0
