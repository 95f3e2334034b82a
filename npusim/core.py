"""One NPU core: its state, semaphores, units and dispatcher, built from the Target alone."""

from __future__ import annotations

from isa.checks import executing_unit, target_units
from npusim.exec import CoreState
from npusim.faults import IllegalInstructionError, SimulationFault
from npusim.units import Dispatcher, DmaUnit, Unit
from npusim.units.base import FAULT
from npusim.units.sync import Semaphore

SEMAPHORE_MAX = 2 ** 16  # counter width of a semaphore; overflowing it is a SyncFault
# id(spec) -> its fields that decide the route (Core.route): the unit's channel, unit or sem
_ROUTE_FIELDS: dict = {}


class Core:
    """Routes a decoded instruction stream to its units and tracks when the core has drained."""

    def __init__(self, system, index: int, instructions: list):
        self.system = system
        self.env = system.env
        self.index = index
        self.target = system.target
        self.dram = system.dram
        self.timing_only = system.timing_only
        self.trace = system.trace_rows
        self.state = CoreState(self.target)
        self.semaphores = [Semaphore(self.env, SEMAPHORE_MAX) for _ in range(self.target.semaphores)]
        self.units = {}
        for name in target_units(self.target):
            self.units[name] = (DmaUnit(self, name, system.port) if name.startswith("dma")
                                else Unit(self, name))
        self.pending = 0          # dispatched to a unit, not yet finished
        self._drained = None      # event a barrier waits on
        self.done_at: int | None = None
        self.last_activity = 0    # when something last finished here (dates a deadlock)
        # (id of the spec: its dataclass hash is deep, the fields naming its unit or sem) ->
        # route: a stream repeats a few shapes; the specs live as long as load_spec()'s cache
        # (_ROUTE_FIELDS holds their ids for as long)
        self._routes: dict = {}
        # id of an Instruction -> its route: a decoded stream shares one object per repeated
        # word (simulate._decode_stream), most of a network's instructions
        self._by_instr: dict = {}
        self.dispatcher = Dispatcher(self, [self.route(i) for i in instructions])

    def route(self, instr):
        """(instr, unit or None for the dispatcher, how the unit runs it: Unit.prepare) from
        the spec's `unit` key, or (fault, None, FAULT, None): the fault dispatch raises."""
        routed = self._by_instr.get(id(instr))
        if routed is not None:
            return routed
        if isinstance(instr, SimulationFault):
            return instr, None, FAULT, None
        spec = instr.spec
        names = _ROUTE_FIELDS.get(id(spec))
        if names is None:
            names = _ROUTE_FIELDS[id(spec)] = tuple(
                f.name for f in spec.fields if f.name in ("chan", "unit", "sem"))
        fields, n = instr.fields, len(names)  # the spec's own: (chan), (unit), (unit, sem)
        key = (id(spec) if not n else (id(spec), fields[names[0]]) if n == 1 else
               (id(spec), fields[names[0]], fields[names[1]]) if n == 2 else
               (id(spec), *map(fields.__getitem__, names)))
        known = self._routes.get(key)
        if known is not None:
            routed = (instr, *known)
        else:
            routed = self._route(instr)
            if routed[2] is not FAULT:
                self._routes[key] = routed[1:]
        self._by_instr[id(instr)] = routed
        return routed

    def _route(self, instr):
        name = executing_unit(instr)
        if name == "dispatch":
            return instr, None, None, None
        unit = self.units.get(name)
        if unit is None:  # only a unit named by a field (chan, unit) can be missing
            field = instr.spec.unit.removeprefix("field:")
            value = instr.fields[field]
            return IllegalInstructionError(
                f"{field}={value} names unit {name}, which this Target does not have "
                f"(dma-engines={self.target.dma_engines})",
                hint=f"units are: {', '.join(self.units)}", instr=instr), None, FAULT, None
        return (instr, unit, *unit.prepare(instr))

    # ---- drain tracking (barrier, halt) ------------------------------------------------------

    def retire(self) -> None:
        """A unit finished an instruction (Unit.run does this inline)."""
        if self.env.now > self.last_activity:  # dispatch may have dated a put ahead of now
            self.last_activity = self.env.now
        self.pending -= 1
        if self.pending == 0:
            self.drained()

    def drained(self) -> None:
        """Nothing is in flight any more: release a barrier waiting for it; maybe done."""
        if self._drained is not None:
            self._drained.succeed()
            self._drained = None
        self.check_done()

    def drain_event(self):
        if self._drained is None:
            self._drained = self.env.event()
        return self._drained

    def check_done(self) -> None:
        if self.dispatcher_finished and self.pending == 0 and self.done_at is None:
            self.done_at = self.env.now

    @property
    def dispatcher_finished(self) -> bool:
        return getattr(self, "dispatcher", None) is not None and self.dispatcher.finished

    @property
    def done(self) -> bool:
        return self.done_at is not None

    def all_units(self):
        return [self.dispatcher, *self.units.values()]
