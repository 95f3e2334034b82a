"""The whole NPU: N cores sharing one DRAM and its port, the global barrier, and the run loop."""

from __future__ import annotations

import contextlib
import functools
import gc

from npusim.blas import single_threaded
from npusim.core import Core
from npusim.dram import DramPort
from npusim.engine import Engine
from npusim.faults import CycleLimitExceeded, DeadlockError, SimulationFault, SyncFault
from npusim.race import RaceDetector
from npusim.tracelog import TraceLog


class System:
    """Builds every core from the Target and runs the event loop until all cores are done.

    Ends with DeadlockError when no event is left but a core has not finished, and with
    CycleLimitExceeded when max_cycles passes first; both list what every unit waits for.
    `races` ("error", "warn", "off"): the npusim.race detector that watches every access.
    """

    def __init__(self, target, streams: list[list], dram, timing_only: bool = False,
                 trace: bool = True, races: str = "error"):
        self.env = Engine()  # a simpy.Environment (npusim.engine)
        self.target = target
        self.dram = dram
        self.timing_only = timing_only
        self.trace_rows: TraceLog | None = TraceLog() if trace else None
        # (core, index, from, to) of each dispatch that waited for a full queue (trace only)
        self.queue_stall_rows: list = []
        self.port = DramPort(self.env, target.dram_bw)
        self._arrived: dict[int, int] = {}
        self._release = None
        self.races = None  # the units look it up while they run; set before the first event
        # routing allocates a tuple per instruction, none in a reference cycle: the cyclic
        # collector would rescan them as they pile up (half of routing a 100k-instruction
        # stream), as in run()
        collecting = gc.isenabled()
        gc.disable()
        try:
            self.cores = [Core(self, i, s) for i, s in enumerate(streams)]
        finally:
            if collecting:
                gc.enable()
        if races != "off":
            self.races = RaceDetector(self, races)
            for core in self.cores:
                for sem, box in enumerate(core.semaphores):
                    box.on_grant = functools.partial(self.races.wait, sem=sem)

    # ---- global barrier ----------------------------------------------------------------------

    def arrive(self, core: int, barrier_id: int):
        """Core `core` reaches gbarrier `barrier_id`; the returned event fires when all have."""
        if self._arrived:
            other, expected = next(iter(self._arrived.items()))
            if barrier_id != expected:
                raise SyncFault(f"gbarrier id={barrier_id} on core{core} meets gbarrier "
                                f"id={expected} already reached by core{other}",
                                hint="every core must reach the same global barriers in order")
        if self._release is None:
            self._release = self.env.event()
        release = self._release
        self._arrived[core] = barrier_id
        if len(self._arrived) == len(self.cores):
            if self.races is not None:  # every core has drained: all that came before is done
                self.races.gbarrier()
            self._arrived = {}
            self._release = None
            release.succeed()
        return release

    def gbarrier_status(self) -> str | None:
        if not self._arrived:
            return None
        bid = next(iter(self._arrived.values()))
        missing = [f"core{c.index}" for c in self.cores if c.index not in self._arrived]
        return f"gbarrier id={bid}: arrived {', '.join(f'core{c}' for c in self._arrived)}; " \
               f"never reached by {', '.join(missing)}"

    # ---- run ---------------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return all(c.done for c in self.cores)

    def waiting(self) -> dict[str, str]:
        report = {}
        for core in self.cores:
            for unit in core.all_units():
                report[unit.full_name] = unit.status()
        status = self.gbarrier_status()
        if status:
            report["global"] = status
        return report

    def run(self, max_cycles: int | None = None) -> int:
        """Simulate to the end; return the total cycles (when the last core finished)."""
        env = self.env
        # Events at exactly max_cycles still run, so a program ending on the limit passes.
        # The run allocates an event, an entry and a trace row per instruction, none of them
        # in a reference cycle; the cyclic collector would rescan the growing trace for nothing
        # (10-30% of the run). The System's own cycles are collected once it is dropped.
        collecting = gc.isenabled()
        gc.disable()
        # functional products on one BLAS thread (npusim.blas); timing-only computes none
        blas = contextlib.nullcontext() if self.timing_only else single_threaded()
        try:
            with blas:
                env.run(until=None if max_cycles is None else max_cycles + 1)
        except SimulationFault as e:
            # SimPy re-raises a failed process's exception as a copy built from its args only;
            # the original, with its core/unit/index attributes, is the copy's __cause__.
            original = e.__cause__
            raise (original if isinstance(original, type(e)) else e) from None
        finally:
            if collecting:
                gc.enable()
        if not self.done:
            blocked = self._first_blocked()
            where = dict(core=blocked[0], unit=blocked[1], index=blocked[2], instr=blocked[3]) \
                if blocked else {}
            if not self._all_blocked():
                raise CycleLimitExceeded(
                    f"the run passed max_cycles={max_cycles} before every core finished",
                    self.waiting(), cycle=env.now,
                    hint="raise max_cycles, or look for a unit that never stops", **where)
            stuck = max(c.last_activity for c in self.cores)
            raise DeadlockError(
                f"no event left after cycle {stuck} but not every core finished; "
                "every blocked unit waits for something nobody will do", self.waiting(),
                cycle=stuck, hint="check that every wait has a matching signal and every core "
                "reaches every gbarrier", **where)
        return max((c.done_at for c in self.cores), default=0)

    def _all_blocked(self) -> bool:
        """Every unfinished unit waits on another (a deadlock), none is merely slow.

        Checked by state rather than by the event queue, which may still hold a DRAM port's
        stale wake-up after everything else has stopped."""
        for core in self.cores:
            d = core.dispatcher
            if not d.finished and d.waiting is None:
                return False
            if any(u.current is not None and u.waiting is None for u in core.units.values()):
                return False
        return True

    def _first_blocked(self):
        for core in self.cores:
            for unit in core.all_units():
                if unit.current is not None and unit.waiting:
                    index, instr = unit.current[:2]
                    return core.index, unit.name, index, instr
        return None
