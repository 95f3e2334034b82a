"""The fetch/dispatch stage as a SimPy process: in-order issue into per-unit queues, barriers, halt."""

from __future__ import annotations

from isa import timing
from npusim.engine import Alarm
from npusim.faults import SimulationFault, disassemble
from npusim.units.base import COUNTERS, FAULT


class Dispatcher:
    """Dispatches one instruction per `dispatch` rule's cycles into its unit's queue.

    A full queue stalls dispatch (stall_queue). The instructions the dispatcher runs itself
    take the cycles of the rule their spec names: nop and halt (dispatch) at once,
    barrier/gbarrier (barrier) once the core has drained (and the other cores arrived). The
    stream ends at halt or at its last instruction.

    Issuing ahead: while the next instruction's queue has room now, it has room when the
    instruction's dispatch ends (only its unit takes entries out), so the dispatcher puts it
    in at once, stamped with that cycle, and goes on without waiting for its dispatch cycles;
    the unit starts it no earlier than the stamp. The dispatcher's clock (`self.clock`) then
    runs ahead of the simulation's; it catches up (one timeout) only where the next step
    depends on the present: a full queue, an instruction it runs itself, a fault, the end.
    """

    name = "dispatch"

    def __init__(self, core, entries: list):
        self.core = core
        self.env = core.env
        self.entries = entries  # (instr, Unit or None, kind, arg) per index (Core.route)
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.work = {"instructions": 0}
        self.finished = False
        # what dispatch waits for: a reason, or the Unit whose queue is full (worded by status())
        self.waiting = None
        self.current = None
        self.clock = 0            # when the next dispatch starts (>= env.now: issuing ahead)
        self._ahead = None        # (first index, its start) of the instructions issued ahead
        self._waiting_from = 0    # `waiting` holds from this cycle (it may be set ahead)
        self.alarm = Alarm(self.env)  # every sleep of the dispatcher's process (engine.Alarm)
        self.env.process(self.run())

    @property
    def full_name(self) -> str:
        return f"core{self.core.index}.dispatch"

    def status(self) -> str:
        if self.finished:
            return "finished (halt or end of program)"
        current = self.current
        waiting = self.waiting if self.env.now >= self._waiting_from else None
        if waiting is not None and not isinstance(waiting, str):
            waiting = f"queue of {waiting.full_name} full ({self.core.target.queue_depth} entries)"
        if self._ahead is not None:  # issued ahead: the one whose dispatch spans env.now
            first, t0 = self._ahead
            step = timing.RULES["dispatch"](self.core.state.hw) or 1
            index = first + max(0, self.env.now - t0) // step
            if current is not None:
                index = min(index, current[0])
            entry = self.entries[index] if index < len(self.entries) else None
            if entry is not None and entry[2] is not FAULT:
                current = (index, entry[0])
        if current is None:
            return "dispatching"
        index, instr = current[:2]  # (index, instr), or the queue entry it waits to put
        return f"{waiting or 'dispatching'} at [{index}] {disassemble(instr)}"

    def run(self):
        env, core, counters = self.env, self.core, self.counters
        trace = core.trace.rows if core.trace is not None else None  # whole rows (tracelog)
        hw = core.state.hw
        d = dispatch_cycles = timing.RULES["dispatch"](hw)  # issuing any instruction to a unit
        clock = env._now
        busy = 0  # dispatch cycles, added to counters["busy"] at the end
        for index, (instr, unit, kind, arg) in enumerate(self.entries):
            start = clock
            if unit is not None:
                put_at = clock = start + d
                busy += d
                core.pending += 1
                queue = unit.queue
                # issue ahead: room now is room at put_at, and a unit busy past put_at takes
                # the entry from its queue at the same moment as if it had gone in at put_at
                # (busy past it: with its current instruction, or with the queued ones too)
                if len(queue.items) < queue.capacity and (unit.earliest_end > put_at or (
                        (queue.items or unit.blocked) and unit.busy_past(put_at))):
                    if self._ahead is None:
                        self._ahead = (index, start)
                    queue.items.append((index, instr, start, put_at, kind, arg))
                    if put_at > core.last_activity:
                        core.last_activity = put_at
                    continue
                self.current = entry = (index, instr, start, put_at, kind, arg)
                now = env._now  # Environment.now's value, read directly (Unit.run)
                if put_at > now and len(queue.items) >= queue.capacity \
                        and unit.earliest_end >= put_at:
                    # full now and until put_at at least (its unit takes nothing before its
                    # instruction ends): wait for room from now, with no timeout to put_at;
                    # room at put_at or later lets the entry in at the same cycle as a put
                    # at put_at would; the stall counts from put_at, as it would have
                    self.waiting = unit  # its full queue (status() words it)
                    self._waiting_from = put_at
                    yield queue.put_wait(entry, self.alarm.arm())
                    self._ahead = None
                    counters["stall_queue"] += env._now - put_at
                    self.waiting = None
                    if trace is not None:
                        core.system.queue_stall_rows.append((core.index, index, put_at, env._now))
                    clock = env._now
                    core.last_activity = env._now
                    continue
                if put_at > now:  # self._until(put_at, d), inline: most dispatches
                    if start > now:
                        yield self.alarm.set(start - now)
                    yield self.alarm.set(put_at - env._now)
                self._ahead = None
                if len(queue.items) < queue.capacity:
                    queue.put(entry)
                else:  # the unit's queue is full: dispatch stalls in order
                    self.waiting = unit
                    self._waiting_from = t0 = env._now
                    yield queue.put_wait(entry, self.alarm.arm())
                    counters["stall_queue"] += env._now - t0
                    self.waiting = None
                    if trace is not None:  # per instruction: the trace's stall_queue column
                        core.system.queue_stall_rows.append((core.index, index, t0, env._now))
                    clock = env._now
                core.last_activity = env._now
                continue
            if kind is FAULT:  # instr is the fault (Core.route)
                self.current = None
                yield from self._until(clock, d)
                self._ahead = None
                raise instr.locate(core=core.index, unit=self.name, index=index, cycle=env._now)
            self.current = (index, instr)
            yield from self._until(clock, d)  # its own instructions run in the present
            self._ahead = None
            ref = instr.spec.ref
            self.work["instructions"] += 1
            if ref in ("barrier", "gbarrier"):
                yield from self.barrier(index, instr)
            cycles = timing.cycles(hw, instr)
            yield self.alarm.set(cycles)
            busy += cycles
            if trace is not None:
                trace.append((core.index, self.name, index, instr.spec.mnemonic, start, env._now,
                              0, 0, 0, 0, env._now - start - cycles, start))
            core.last_activity = env._now
            clock = env._now
            if ref == "halt":
                break
        yield from self._until(clock, d)  # the last put's cycle ends the stream
        counters["busy"] += busy
        self._ahead = None
        self.current = None
        self.finished = True
        core.check_done()

    def _until(self, at: int, step: int):
        """Catch the simulation up with the dispatcher's clock: wait until cycle `at`. The
        last `step` cycles are a timeout of their own, started in the cycle where dispatch
        without issuing ahead would have started it, so that what happens at `at` is ordered
        as it would have been (events of one cycle run in the order they were scheduled)."""
        env = self.env
        if at - step > env._now:
            yield self.alarm.set(at - step - env._now)
        if at > env._now:
            yield self.alarm.set(at - env._now)

    def barrier(self, index, instr):
        """Wait until every unit of this core is idle with an empty queue (and, for gbarrier,
        until every core has arrived)."""
        env, core = self.env, self.core
        t0 = env.now
        if core.pending:
            self.waiting = "barrier: waiting for the core's units to drain"
            yield core.drain_event()
        if instr.spec.ref == "barrier" and core.system.races is not None:
            core.system.races.barrier(core)
        if instr.spec.ref == "gbarrier":
            try:
                arrived = core.system.arrive(core.index, instr.fields["id"])
            except SimulationFault as e:
                raise e.locate(core=core.index, unit=self.name, index=index, instr=instr,
                               cycle=env.now) from None
            if not arrived.triggered:
                self.waiting = f"gbarrier id={instr.fields['id']}: waiting for the other cores"
                yield arrived
        self.waiting = None
        self.counters["stall_barrier"] += env.now - t0
