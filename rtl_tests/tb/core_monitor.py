"""Monitor of npu_core: one trace row (unit, index, start, end) per instruction, and the done cycle.

Every cycle, once its signals have settled, it reads the core's `cycle` counter (the model's
env.now during that cycle) and the trace ports, whose events happen at the coming edge, i.e.
at cycle + 1. An instruction's dispatch begins when pc reaches it; a dispatcher instruction (nop, halt,
barrier) starts then too."""

from __future__ import annotations

import cocotb
from cocotb.triggers import Event, FallingEdge, ReadOnly


def _field(value: int, index: int, width: int) -> int:
    return (value >> (index * width)) & ((1 << width) - 1)


class CoreTraceMonitor:
    """Collects rows as (unit, index, start, end) tuples, in the order instructions end."""

    def __init__(self, dut, units: tuple[str, ...], index_bits: int):
        self.dut = dut
        self.units = units
        self.iw = index_bits
        self.rows: list[tuple[str, int, int, int]] = []
        self.dispatched: dict[int, int] = {}      # index -> cycle its dispatch began
        self.done_cycle: int | None = None
        self.fault_cycle: int | None = None
        self.finished = Event()
        self._started: dict[str, tuple[int, int]] = {}
        self._pc: tuple[int, int] | None = None   # (pc, cycle it was reached)
        self._task = cocotb.start_soon(self._run())

    async def _run(self) -> None:
        dut, iw = self.dut, self.iw
        while True:
            await FallingEdge(dut.clk)
            await ReadOnly()
            if int(dut.rst.value):
                continue
            now = int(dut.cycle.value)
            pc = int(dut.pc.value)
            if self._pc is None or self._pc[0] != pc:
                self._pc = (pc, now)
                self.dispatched.setdefault(pc, now)
            if int(dut.disp_fin.value):
                self.rows.append(("dispatch", pc, self._pc[1], now + 1))
            fin, take = int(dut.unit_fin.value), int(dut.unit_take.value)
            cur_idx = int(dut.unit_cur_index.value) if fin else 0
            take_idx = int(dut.unit_take_index.value) if take else 0
            for u, name in enumerate(self.units):
                if fin >> u & 1:  # before take: a unit may end one and start the next together
                    index, start = self._started.pop(name)
                    assert index == _field(cur_idx, u, iw), \
                        f"{name} ends [{_field(cur_idx, u, iw)}] but started [{index}]"
                    self.rows.append((name, index, start, now + 1))
                if take >> u & 1:
                    self._started[name] = (_field(take_idx, u, iw), now + 1)
            if int(dut.fault.value) and self.fault_cycle is None:
                self.fault_cycle = now
                self.finished.set()
            if int(dut.done.value) and self.done_cycle is None:
                self.done_cycle = now
                self.finished.set()

    def stop(self) -> None:
        self._task.cancel()
