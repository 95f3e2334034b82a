"""An execution unit as a SimPy process: an in-order queue, one instruction at a time, sync ops."""

from __future__ import annotations

import simpy

from isa import timing
from npusim.exec import issue
from npusim.exec.control import check_semaphore
from npusim.faults import SimulationFault, SyncFault, disassemble

COUNTERS = ("busy", "stall_token", "stall_dram", "stall_queue", "stall_barrier")


class Unit:
    """A matrix or vector unit (DmaUnit adds the DRAM port): runs its queue in order.

    An instruction reads its sources when it starts and its results become visible when it
    ends (the `commit` of npusim.exec.issue), so a missing signal/wait shows up as wrong data.
    """

    def __init__(self, core, name: str):
        self.core = core
        self.env = core.env
        self.name = name
        self.queue = simpy.Store(self.env, capacity=core.target.queue_depth)
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.work = {"macs": 0, "sram_bytes": 0, "vector_ops": 0, "dram_bytes": 0,
                     "instructions": 0}
        self.sram_bytes = {}  # by buffer, for the energy model (npusim.hw.energy)
        self.waiting: str | None = None   # what a blocked instruction waits for (deadlock report)
        self.current = None               # (index, instr) in flight
        self.env.process(self.run())

    @property
    def full_name(self) -> str:
        return f"core{self.core.index}.{self.name}"

    def status(self) -> str:
        """One line: what this unit is doing now (for deadlock and cycle-limit reports)."""
        if self.current is None:
            return "idle (queue empty)"
        index, instr = self.current
        doing = self.waiting or "executing"
        return f"{doing} at [{index}] {disassemble(instr)}"

    def run(self):
        env, core, get = self.env, self.core, self.queue.get
        trace, work = core.trace, self.work
        while True:
            req = get()
            if not req.triggered:  # an idle unit sleeps until dispatch puts something
                yield req
            index, instr, dispatched = req.value
            self.current = (index, instr)
            start = env.now
            try:
                info, token, dram = yield from self.execute(instr)
            except SimulationFault as e:
                raise e.locate(core=core.index, unit=self.name, index=index, instr=instr,
                               cycle=env.now) from None
            end = env.now
            self.counters["busy"] += end - start - token - dram
            work["instructions"] += 1
            if info is not None:
                work["macs"] += info.macs
                for buf, n in info.sram:
                    self.sram_bytes[buf] = self.sram_bytes.get(buf, 0) + n
                    work["sram_bytes"] += n
                work["vector_ops"] += info.vector_ops
                work["dram_bytes"] += info.dram_bytes
            if trace is not None:
                trace.append((core.index, self.name, index, instr.spec.mnemonic, start, end,
                              info.dram_bytes if info else 0, info.macs if info else 0,
                              token, dram, 0, dispatched))
            self.current = None
            core.retire()

    def execute(self, instr):
        """SimPy generator: run one instruction; returns (ExecInfo or None, cycles stalled on
        a semaphore, cycles stalled on the DRAM port): the trace records the causes apart."""
        ref = instr.spec.ref
        if ref == "signal":
            return (yield from self.signal(instr))
        if ref == "wait":
            return (yield from self.wait(instr))
        info, commit = issue(instr, self.core.state, self.core.dram, self.core.timing_only)
        races = self.core.system.races
        if races is not None:  # observes only: checked when the instruction starts
            races.access(self, instr)
        yield self.env.timeout(info.cycles)
        if commit is not None:
            commit()
        return info, 0, 0

    def signal(self, instr):
        sem = check_semaphore(self.core.state, instr)
        # the increment is visible at the end of the instruction's cycles (its spec rule,
        # looked up directly: signal/wait are most of a double-buffered stream)
        yield self.env.timeout(timing.RULES[instr.spec.timing](self.core.state.hw))
        box = self.core.semaphores[sem]
        if box.level >= box.capacity:
            raise SyncFault(f"semaphore sem={sem} overflows its capacity of {box.capacity}",
                            hint="every signal needs a matching wait")
        box.put(1)
        if self.core.system.races is not None:
            self.core.system.races.signal(self, sem)
        return None, 0, 0

    def wait(self, instr):
        sem = check_semaphore(self.core.state, instr)
        req = self.core.semaphores[sem].get(1)
        stall = 0
        if not req.triggered:
            self.waiting = f"wait sem={sem} (value 0)"
            t0 = self.env.now
            yield req
            stall = self.env.now - t0
            self.counters["stall_token"] += stall
            self.waiting = None
        if self.core.system.races is not None:
            self.core.system.races.wait(self, sem)
        # its cycles (one: the sync rule) count once the semaphore is positive
        yield self.env.timeout(timing.RULES[instr.spec.timing](self.core.state.hw))
        return None, stall, 0
