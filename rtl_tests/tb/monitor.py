"""Monitor: the cycles from start (taken) to done of every instruction, from the tb_probe."""

from __future__ import annotations

from collections import deque

import cocotb
from cocotb.queue import Queue
from cocotb.triggers import NextTimeStep, ReadOnly, ValueChange


class CycleMonitor:
    """An instruction's cycles are done_edge - start_edge, both rising-edge indices recorded
    in HDL by tb_probe; Python wakes only when an instruction is taken or finishes."""

    def __init__(self, dut):
        self.probe = dut.u_probe
        self._open: deque[int] = deque()
        self.completed: Queue = Queue()
        self._tasks = [cocotb.start_soon(self._takes()), cocotb.start_soon(self._dones())]

    @property
    def cycle(self) -> int:
        return int(self.probe.cycle.value)

    async def _takes(self) -> None:
        while True:
            await ValueChange(self.probe.n_take)
            await ReadOnly()
            self._open.append(int(self.probe.take_cycle.value))

    async def _dones(self) -> None:
        while True:
            await ValueChange(self.probe.n_done)
            await ReadOnly()
            ended = int(self.probe.done_cycle.value)
            if not self._open:
                raise AssertionError(f"done at cycle {ended} with no instruction in flight")
            self.completed.put_nowait((self._open.popleft(), ended))

    async def next_cycles(self) -> int:
        """Cycles from start to done of the next instruction to finish; returns after the
        done edge, when the instruction's last results are in the memories."""
        begun, ended = await self.completed.get()
        await NextTimeStep()  # leave the read-only phase: the caller may write memories
        return ended - begun

    def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
