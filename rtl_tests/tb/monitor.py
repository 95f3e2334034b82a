"""Monitor: timestamps every instruction a unit takes (start && ready) and finishes (done)."""

from __future__ import annotations

from collections import deque

import cocotb
from cocotb.queue import Queue
from cocotb.triggers import FallingEdge, NextTimeStep, ReadOnly, RisingEdge


class CycleMonitor:
    """Counts rising edges; an instruction's cycles are done_edge - start_edge.

    Signals are sampled once settled after each falling edge: the values the next rising edge
    samples. done is checked before start so a back-to-back issue pairs correctly."""

    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self._open: deque[int] = deque()
        self.completed: Queue = Queue()
        self._task = cocotb.start_soon(self._run())

    async def _run(self) -> None:
        dut = self.dut
        while True:
            await FallingEdge(dut.clk)
            await ReadOnly()  # after the driver's writes of this edge have settled
            self.cycle += 1
            if int(dut.done.value):
                if not self._open:
                    raise AssertionError(f"done at cycle {self.cycle} with no instruction in flight")
                begun = self._open.popleft()
                self.completed.put_nowait((begun, self.cycle))
            if int(dut.start.value) and int(dut.ready.value):
                self._open.append(self.cycle)

    async def next_cycles(self) -> int:
        """Cycles from start to done of the next instruction to finish; returns once the done
        edge (where the last results are written) has been applied."""
        begun, ended = await self.completed.get()
        if self.cycle == ended:  # still before the done edge
            await RisingEdge(self.dut.clk)
            await ReadOnly()
        await NextTimeStep()  # leave the read-only phase: the caller may write memories
        return ended - begun

    def stop(self) -> None:
        self._task.cancel()
