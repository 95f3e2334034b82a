"""A DMA channel as a SimPy process: setup, data beats over the shared DRAM port, latency,
and the zero fill of a padded load beside them."""

from __future__ import annotations

from isa import timing
from npusim import exec as exec_pkg
from npusim.units.base import Unit


class DmaUnit(Unit):
    """Uncontended, a transfer takes exactly timing.dma = max(setup + latency + ceil(bytes / BW),
    ceil(fill / F)); waiting for the shared port (other channels, other cores) is counted as
    stall_dram. The fill walker needs no port: it runs from the start, so a load ends at the
    later of its (possibly delayed) last beat and start + ceil(fill / F)."""

    SPECIAL = frozenset(("dma_load", "dma_store"))
    FUSE_WAITS = False  # woken when the semaphore turns positive, then its cycles (Unit)

    def __init__(self, core, name: str, port):
        self.port = port
        super().__init__(core, name)
        # a transfer of no bytes: setup, then the latency (Unit.busy_past); unless a test
        # replaced signal/wait, which then run through execute() too
        hw = core.state.hw
        self.least_cycles = hw.dma_setup + hw.dram_latency if self._own_sync() else 0

    def execute(self, instr):
        ref = instr.spec.ref
        if ref not in ("dma_load", "dma_store"):
            return (yield from super().execute(instr))
        core, env = self.core, self.env
        memo, writes = self.memo, core.state.reg_writes
        known = memo.get(id(instr)) if memo is not None else None
        if known is not None and known[0] == writes[self.name]:  # Unit.memo
            info, commit = known[1], None
        else:
            info, commit = exec_pkg.issue(instr, core.state, core.dram, core.timing_only)
            if memo is not None and commit is None:
                memo[id(instr)] = (writes[self.name], info)
        if core.system.races is not None:  # observes only: checked when the transfer starts
            core.system.races.access(self, instr)
        hw = core.state.hw
        start = env._now
        self.earliest_end = start + info.cycles  # uncontended; waiting for the port is later
        fill_end = start + timing.dma_fill(hw, info.fill_elems)
        sleep = self.alarm.set
        if hw.dma_setup:
            yield sleep(hw.dma_setup)
        self.waiting = "DRAM port (shared by every DMA channel of every core)"
        yield from self.port.transfer(info.dram_bytes, "read" if ref == "dma_load" else "write",
                                      self.alarm)
        self.waiting = None
        # the latency after the last beat and the fill walker's end: one timeout, the later
        end = max(env._now + hw.dram_latency, fill_end)
        if end > env._now:
            yield sleep(end - env._now)
        # the port wait that made the transfer end late; a wait the zero fill hid is no stall
        stall = env._now - start - info.cycles
        self.counters["stall_dram"] += stall
        if commit is not None:
            commit()
        return info, 0, stall
