"""An execution unit as a SimPy process: an in-order queue, one instruction at a time, sync ops."""

from __future__ import annotations

from collections import Counter

from isa import timing
from npusim import exec as exec_pkg
from npusim.engine import Alarm
from npusim.exec.control import check_semaphore
from npusim.faults import SimulationFault, SyncFault, disassemble
from npusim.units.sync import InstrQueue

COUNTERS = ("busy", "stall_token", "stall_dram", "stall_queue", "stall_barrier")
# how run() executes an instruction (Unit.prepare): compared by identity, once per instruction;
# FAULT: a routed fault (Core.route), raised by dispatch when it reaches it
PLAIN, SIGNAL, WAIT, SPECIAL, FAULT = "plain", "signal", "wait", "special", "fault"


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
        self.infos: list = []             # the ExecInfo of every instruction run (work totals)
        self._counted = None              # (len(infos), _distinct_infos()) when last counted
        self.instructions = 0
        self.waiting: str | None = None   # what a blocked instruction waits for (deadlock report)
        self.current = None               # the queue entry (index, instr, ...) in flight
        self.earliest_end = 0             # the current instruction cannot end before this
        # timing-only: id(instr) -> (its unit's register writes then, ExecInfo) of what ran
        # here: a decoded stream repeats one Instruction per word, whose checks passed and
        # whose cost is known while the unit's registers are unchanged (CoreState.reg_writes);
        # a functional run computes data every time
        self.memo = {} if core.timing_only else None
        self.blocked = 0                  # a wait's cycles while its semaphore is 0, else 0
        self.alarm = Alarm(self.env)      # every sleep of this unit's process (engine.Alarm)
        self.env.process(self.run())

    @property
    def full_name(self) -> str:
        return f"core{self.core.index}.{self.name}"

    def _distinct_infos(self) -> list:
        """(ExecInfo, how many instructions ran with it): one ExecInfo serves every instruction
        of a shape (npusim.exec handlers), so the totals sum a few hundred, not every one.
        Counted once per length of `infos` (work, sram_bytes and the counters all ask)."""
        counted = self._counted
        if counted is not None and counted[0] == len(self.infos):
            return counted[1]
        ids = Counter(map(id, self.infos))
        objects = dict(zip(map(id, self.infos), self.infos))
        out = [(objects[i], n) for i, n in ids.items()]
        self._counted = (len(self.infos), out)
        return out

    @property
    def sram_bytes(self) -> dict:
        """SRAM bytes by buffer, for the energy model (npusim.hw.energy), summed when asked."""
        out: dict = {}
        for info, count in self._distinct_infos():
            for buf, n in info.sram:
                out[buf] = out.get(buf, 0) + n * count
        return out

    @property
    def work(self) -> dict:
        """MACs, SRAM bytes, vector element-ops, DRAM bytes and instructions run so far (summed
        when asked: one append per instruction instead of five counter updates)."""
        infos = self._distinct_infos()
        return {"macs": sum(i.macs * n for i, n in infos),
                "sram_bytes": sum(i.sram_bytes * n for i, n in infos),
                "vector_ops": sum(i.vector_ops * n for i, n in infos),
                "dram_bytes": sum(i.dram_bytes * n for i, n in infos),
                "instructions": self.instructions}

    def prepare(self, instr) -> tuple:
        """(kind, argument) of an instruction, worked out once per program (Core.route): how
        run() executes it. A sync op's argument is (semaphore or None when out of range, its
        cycles); a plain instruction's its npusim.exec handler."""
        ref = instr.spec.ref
        if ref in self.SPECIAL or (ref in ("signal", "wait") and not self._own_sync()):
            return SPECIAL, None
        if ref in ("signal", "wait"):
            sem = instr.fields["sem"]
            cycles = timing.RULES[instr.spec.timing](self.core.state.hw)
            return (SIGNAL if ref == "signal" else WAIT), (
                sem if sem < self.core.state.semaphore_count else None, cycles)
        return PLAIN, exec_pkg.HANDLERS[ref]

    def busy_past(self, cycle: int) -> bool:
        """This unit cannot take an entry put behind its queued ones at or before `cycle`: its
        current instruction and every queued one before it take at least that long (a wait
        blocked on its semaphore ends its cycles after a signal, which has not come yet; a
        queued sync op takes its cycles, a DMA transfer its setup and latency, others >= 0)."""
        reach = self.earliest_end
        if self.blocked:
            reach = max(reach, self.env.now + self.blocked)
        for entry in self.queue.items:
            if reach > cycle:
                return True
            kind = entry[4]
            reach = max(reach, entry[3]) + (entry[5][1] if kind is SIGNAL or kind is WAIT else
                                            self.least_cycles if kind is SPECIAL else 0)
        return reach > cycle

    # the fewest cycles an instruction run by execute() takes (DmaUnit: a transfer's)
    least_cycles = 0

    def _own_sync(self) -> bool:
        """signal/wait are inline in run() unless a subclass or a test replaced them."""
        return type(self).signal is _SIGNAL and type(self).wait is _WAIT

    def status(self) -> str:
        """One line: what this unit is doing now (for deadlock and cycle-limit reports)."""
        if self.current is None:
            return "idle (queue empty)"
        index, instr = self.current[:2]
        doing = self.waiting or "executing"
        return f"{doing} at [{index}] {disassemble(instr)}"

    # spec refs this class runs with execute() (DMA transfers); the others are inline in run()
    SPECIAL = frozenset()
    # a blocked wait is woken once, its cycles after the signal's put (Semaphore.put); a DMA
    # channel's two events decide DRAM-port ties (docs/timing.md, "Events")
    FUSE_WAITS = True

    def run(self):
        env, core, queue = self.env, self.core, self.queue
        counters, infos = self.counters, self.infos
        trace = core.trace.unit_rows(self) if core.trace is not None else None
        state, dram, timing_only = core.state, core.dram, core.timing_only
        semaphores, timeout = core.semaphores, self.alarm.set
        races = core.system.races
        core_index, name = core.index, self.name
        items = queue.items
        memo, reg_writes = self.memo, state.reg_writes
        fuse_waits = self.FUSE_WAITS
        while True:
            if items and queue.putter is None:  # queue.get(), inline: the common case
                entry = items.popleft()
            else:
                entry = queue.get()
                if entry is None:  # an idle unit sleeps until dispatch puts something
                    entry = yield queue.wait(self.alarm.arm())
            index, instr, dispatched, ready, kind, arg = entry
            # SimPy's Environment.now is a property over _now: read directly, several times
            # per instruction
            now = env._now
            if ready > now:  # dispatched ahead: the entry enters the queue at `ready`
                yield timeout(ready - now)
                now = env._now
            self.current = entry
            start = now
            token = dram_stall = 0
            info = None
            try:
                if kind is SIGNAL:
                    sem, cycles = arg
                    if sem is None:
                        check_semaphore(state, instr)  # raises: sem out of range
                    self.earliest_end = start + cycles
                    # the increment is visible at the end of the instruction's cycles
                    yield timeout(cycles)
                    box = semaphores[sem]
                    if box.level >= box.capacity:
                        raise _overflow(sem, box)
                    if races is not None:  # before the put: a waiter it serves takes it
                        races.signal(self, sem)
                    if box.waiters:
                        box.put()
                    else:  # box.put(), inline
                        box.level += 1
                elif kind is WAIT:
                    sem, cycles = arg
                    if sem is None:
                        check_semaphore(state, instr)
                    self.earliest_end = start + cycles
                    box = semaphores[sem]
                    if box.level:  # box.get(), inline: taken at once
                        box.level -= 1
                        if races is not None:
                            races.wait(self, sem)
                        # its cycles (one: the sync rule) count once the semaphore is positive
                        yield timeout(cycles)
                    elif fuse_waits:
                        # woken by the signal's put `cycles` after it, in one event
                        self.waiting = f"wait sem={sem} (value 0)"
                        self.blocked = cycles  # it ends `cycles` after a signal, at the soonest
                        token = (yield box.get(cycles, self)) - start
                        counters["stall_token"] += token
                    else:
                        self.waiting = f"wait sem={sem} (value 0)"
                        self.blocked = cycles
                        yield box.get(0, self)  # the race detector saw it in the put
                        token = env._now - start
                        counters["stall_token"] += token
                        yield timeout(cycles)
                elif kind is PLAIN:  # Unit.execute of a plain instruction, without its generator
                    known = memo.get(id(instr)) if memo is not None else None
                    if known is not None and known[0] == reg_writes[name]:
                        info, commit = known[1], None
                    else:
                        try:
                            info, commit = arg(instr, state, dram, timing_only)
                        except SimulationFault as e:
                            raise e.locate(instr=instr)
                        if memo is not None and commit is None:
                            memo[id(instr)] = (reg_writes[name], info)
                    if races is not None:  # observes only: checked when the instruction starts
                        races.access(self, instr)
                    self.earliest_end = start + info.cycles
                    yield timeout(info.cycles)
                    if commit is not None:
                        commit()
                else:
                    self.earliest_end = start  # unknown; DmaUnit.execute says when it can end
                    info, token, dram_stall = yield from self.execute(instr)
            except SimulationFault as e:
                raise e.locate(core=core_index, unit=name, index=index, instr=instr,
                               cycle=env.now) from None
            end = env._now
            counters["busy"] += end - start - token - dram_stall
            self.instructions += 1
            if info is not None:
                infos.append(info)
            if trace is not None:  # npusim.tracelog: ints only, expanded when read
                trace.append((index, start, end, token, dram_stall, dispatched))
            self.current = None
            # Core.retire, inline
            if end > core.last_activity:  # dispatch may have dated a put ahead of now
                core.last_activity = end
            core.pending -= 1
            if not core.pending:
                core.drained()

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
        if self.core.system.races is not None:  # before the put: a waiter it serves takes it
            self.core.system.races.signal(self, sem)
        box.put()
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
