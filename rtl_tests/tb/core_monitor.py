"""Monitor of npu_core: one trace row (unit, index, start, end) per instruction, each
instruction's dispatch cycle, and the cycles at which the core was done or faulted.

The core registers the events of cycle t at edge t + 1 (its trc_* ports, with t) and toggles
trc_seq, so the monitor wakes only after cycles in which something happened. An instruction's
dispatch begins when pc reaches it; a dispatcher instruction (nop, halt, barrier) starts then."""

from __future__ import annotations

import cocotb
from cocotb.triggers import Event, ReadOnly, ValueChange


def _field(value: int, index: int, width: int) -> int:
    return (value >> (index * width)) & ((1 << width) - 1)


class CoreTraceMonitor:
    """Collects rows as (unit, index, start, end) tuples, in the order instructions end."""

    def __init__(self, dut, units: tuple[str, ...], index_bits: int):
        self.dut = dut
        self.units = units
        self.iw = index_bits
        self.rows: list[tuple[str, int, int, int]] = []
        self.dispatched: dict[int, int] = {0: 0}  # index -> cycle its dispatch began
        self.done_cycle: int | None = None
        self.fault_cycle: int | None = None
        self.finished = Event()
        self._started: dict[str, tuple[int, int]] = {}
        self._task = cocotb.start_soon(self._run())

    async def _run(self) -> None:
        dut, iw = self.dut, self.iw
        while True:
            await ValueChange(dut.trc_seq)
            await ReadOnly()
            if int(dut.rst.value):
                continue
            now = int(dut.trc_cycle.value)   # the cycle sampled; its events act at edge now + 1
            at = now + 1
            pc = int(dut.trc_pc.value)
            if int(dut.trc_disp_fin.value):
                self.rows.append(("dispatch", pc, self.dispatched[pc], at))
            if int(dut.trc_pc_step.value):
                self.dispatched.setdefault(pc + 1, at)
            fin, take = int(dut.trc_fin.value), int(dut.trc_take.value)
            cur_idx = int(dut.trc_cur_index.value) if fin else 0
            take_idx = int(dut.trc_take_index.value) if take else 0
            for u, name in enumerate(self.units):
                if fin >> u & 1:  # before take: a unit may end one and start the next together
                    index, start = self._started.pop(name)
                    assert index == _field(cur_idx, u, iw), \
                        f"{name} ends [{_field(cur_idx, u, iw)}] but started [{index}]"
                    self.rows.append((name, index, start, at))
                if take >> u & 1:
                    self._started[name] = (_field(take_idx, u, iw), at)
            # done and fault are levels: the first cycle they hold
            if int(dut.trc_fault.value):
                self.fault_cycle = now
                self.finished.set()
            if int(dut.trc_done.value):
                self.done_cycle = now
                self.finished.set()

    def stop(self) -> None:
        self._task.cancel()
