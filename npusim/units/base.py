"""An execution unit as a SimPy process: an in-order queue, one instruction at a time, sync ops."""

from __future__ import annotations

from isa import timing
from npusim import exec as exec_pkg
from npusim.exec.control import check_semaphore
from npusim.faults import SimulationFault, SyncFault, disassemble
from npusim.units.sync import InstrQueue

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
        self.queue = InstrQueue(self.env, core.target.queue_depth)
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.work = {"macs": 0, "sram_bytes": 0, "vector_ops": 0, "dram_bytes": 0,
                     "instructions": 0}
        self.waiting: str | None = None   # what a blocked instruction waits for (deadlock report)
        self.current = None               # (index, instr) in flight
        self.earliest_end = 0             # the current instruction cannot end before this
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

    # spec refs this class runs with execute() (DMA transfers); the others are inline in run()
    SPECIAL = frozenset()

    def run(self):
        env, core, queue = self.env, self.core, self.queue
        trace, work, counters = core.trace, self.work, self.counters
        state, dram, timing_only = core.state, core.dram, core.timing_only
        handlers, special, timeout = exec_pkg.HANDLERS, self.SPECIAL, env.timeout
        races = core.system.races
        # signal/wait inline unless a subclass or a test replaced them (conformance mutants)
        own_sync = type(self).signal is _SIGNAL and type(self).wait is _WAIT
        sync_cycles = {}  # spec -> its rule's cycles (signal/wait are most of a stream)
        while True:
            entry = queue.get()
            if entry is None:  # an idle unit sleeps until dispatch puts something
                entry = yield queue.wait()
            index, instr, dispatched, ready = entry
            if ready > env.now:  # dispatched ahead: the entry enters the queue at `ready`
                yield timeout(ready - env.now)
            self.current = (index, instr)
            start = env.now
            spec = instr.spec
            ref = spec.ref
            token = dram_stall = 0
            info = None
            try:
                if ref == "signal" and own_sync:
                    sem = check_semaphore(state, instr)
                    cycles = sync_cycles.get(spec)
                    if cycles is None:
                        cycles = sync_cycles[spec] = timing.RULES[spec.timing](state.hw)
                    self.earliest_end = start + cycles
                    # the increment is visible at the end of the instruction's cycles
                    yield timeout(cycles)
                    box = core.semaphores[sem]
                    if box.level >= box.capacity:
                        raise _overflow(sem, box)
                    box.put()
                    if races is not None:
                        races.signal(self, sem)
                elif ref == "wait" and own_sync:
                    sem = check_semaphore(state, instr)
                    cycles = sync_cycles.get(spec)
                    if cycles is None:
                        cycles = sync_cycles[spec] = timing.RULES[spec.timing](state.hw)
                    self.earliest_end = start + cycles
                    req = core.semaphores[sem].get()
                    if req is not None:
                        self.waiting = f"wait sem={sem} (value 0)"
                        yield req
                        token = env.now - start
                        counters["stall_token"] += token
                        self.waiting = None
                    if races is not None:
                        races.wait(self, sem)
                    # its cycles (one: the sync rule) count once the semaphore is positive
                    yield timeout(cycles)
                elif ref in special or ref == "signal" or ref == "wait":
                    self.earliest_end = start  # unknown; DmaUnit.execute says when it can end
                    info, token, dram_stall = yield from self.execute(instr)
                else:  # Unit.execute of a plain instruction, without its generator
                    try:
                        info, commit = handlers[ref](instr, state, dram, timing_only)
                    except SimulationFault as e:
                        raise e.locate(instr=instr)
                    if races is not None:  # observes only: checked when the instruction starts
                        races.access(self, instr)
                    self.earliest_end = start + info.cycles
                    yield timeout(info.cycles)
                    if commit is not None:
                        commit()
            except SimulationFault as e:
                raise e.locate(core=core.index, unit=self.name, index=index, instr=instr,
                               cycle=env.now) from None
            end = env.now
            counters["busy"] += end - start - token - dram_stall
            work["instructions"] += 1
            if info is not None:
                work["macs"] += info.macs
                work["sram_bytes"] += info.sram_bytes
                work["vector_ops"] += info.vector_ops
                work["dram_bytes"] += info.dram_bytes
                if trace is not None:
                    trace.append((core.index, self.name, index, spec.mnemonic, start, end,
                                  info.dram_bytes, info.macs, token, dram_stall, 0, dispatched))
            elif trace is not None:
                trace.append((core.index, self.name, index, spec.mnemonic, start, end, 0, 0,
                              token, dram_stall, 0, dispatched))
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
        info, commit = exec_pkg.issue(instr, self.core.state, self.core.dram,
                                      self.core.timing_only)
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
            raise _overflow(sem, box)
        box.put()
        if self.core.system.races is not None:
            self.core.system.races.signal(self, sem)
        return None, 0, 0

    def wait(self, instr):
        sem = check_semaphore(self.core.state, instr)
        req = self.core.semaphores[sem].get()
        stall = 0
        if req is not None:
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


_SIGNAL, _WAIT = Unit.signal, Unit.wait  # the unpatched ones, which run() inlines


def _overflow(sem: int, box) -> SyncFault:
    return SyncFault(f"semaphore sem={sem} overflows its capacity of {box.capacity}",
                     hint="every signal needs a matching wait")
