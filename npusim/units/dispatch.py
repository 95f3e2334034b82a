"""The fetch/dispatch stage as a SimPy process: in-order issue into per-unit queues, barriers, halt."""

from __future__ import annotations

from isa import timing
from npusim.faults import SimulationFault, disassemble
from npusim.units.base import COUNTERS


class Dispatcher:
    """Dispatches one instruction per `dispatch` rule's cycles into its unit's queue.

    A full queue stalls dispatch (stall_queue). The instructions the dispatcher runs itself
    take the cycles of the rule their spec names: nop and halt (dispatch) at once,
    barrier/gbarrier (barrier) once the core has drained (and the other cores arrived). The
    stream ends at halt or at its last instruction.
    """

    name = "dispatch"

    def __init__(self, core, entries: list):
        self.core = core
        self.env = core.env
        self.entries = entries  # (instr, Unit or None) per index, or a fault to raise there
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.work = {"instructions": 0}
        self.finished = False
        self.waiting: str | None = None
        self.current = None
        self.env.process(self.run())

    @property
    def full_name(self) -> str:
        return f"core{self.core.index}.dispatch"

    def status(self) -> str:
        if self.finished:
            return "finished (halt or end of program)"
        if self.current is None:
            return "dispatching"
        index, instr = self.current
        return f"{self.waiting or 'dispatching'} at [{index}] {disassemble(instr)}"

    def run(self):
        env, core, counters = self.env, self.core, self.counters
        trace = core.trace
        hw = core.state.hw
        dispatch_cycles = timing.RULES["dispatch"](hw)  # issuing any instruction to a unit
        for index, entry in enumerate(self.entries):
            if isinstance(entry, SimulationFault):
                raise entry.locate(core=core.index, unit=self.name, index=index, cycle=env.now)
            instr, unit = entry
            start = env.now
            self.current = (index, instr)
            if unit is not None:
                yield env.timeout(dispatch_cycles)
                counters["busy"] += dispatch_cycles
                core.pending += 1
                put = unit.queue.put((index, instr, start))
                if put is not None:  # the unit's queue is full: dispatch stalls in order
                    self.waiting = (f"queue of {unit.full_name} full "
                                    f"({core.target.queue_depth} entries)")
                    t0 = env.now
                    yield put
                    counters["stall_queue"] += env.now - t0
                    self.waiting = None
                    if trace is not None:  # per instruction: the trace's stall_queue column
                        core.system.queue_stall_rows.append((core.index, index, t0, env.now))
                core.last_activity = env.now
                continue
            ref = instr.spec.ref
            self.work["instructions"] += 1
            if ref in ("barrier", "gbarrier"):
                yield from self.barrier(index, instr)
            cycles = timing.cycles(hw, instr)
            yield env.timeout(cycles)
            counters["busy"] += cycles
            if trace is not None:
                trace.append((core.index, self.name, index, instr.spec.mnemonic, start, env.now,
                              0, 0, 0, 0, env.now - start - cycles, start))
            core.last_activity = env.now
            if ref == "halt":
                break
        self.current = None
        self.finished = True
        core.check_done()

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
