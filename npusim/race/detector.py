"""The race detector: vector clocks per unit (program order, signal->wait, barrier, gbarrier)
and a RaceError for two conflicting accesses of different units that nothing orders."""

from __future__ import annotations

import hashlib
import warnings
from collections import deque

from npusim.faults import RaceError, RaceWarning, disassemble
from npusim.race.accesses import accesses
from npusim.race.shadow import Access, DramShadow, SramShadow

MODES = ("error", "warn", "off")
WARN_LIMIT = 10  # RaceWarnings issued per run; SimResult.races lists every race


class RaceDetector:
    """Observes a System's units (never changes what they do or when): every data instruction
    is checked against the recorded accesses of the other units when it starts."""

    def __init__(self, system, mode: str = "error"):
        self.mode = mode
        units = [u for core in system.cores for u in core.units.values()]
        self.uid = {unit: i for i, unit in enumerate(units)}  # the clock index of each unit
        n = len(units)
        self.clocks = [[0] * n for _ in range(n)]
        self.tokens: dict = {}  # (core, sem) -> clocks of the signals not yet waited for
        self.sram = [{b: SramShadow(size) for b, size in core.state.sizes.items()}
                     for core in system.cores]
        self.dram = DramShadow([i for i, u in enumerate(units) if u.name.startswith("dma")])
        self.found: list[RaceError] = []
        self._seen: set = set()

    # ---- ordering --------------------------------------------------------------------------

    def signal(self, unit, sem: int) -> None:
        """The semaphore's increment carries everything its unit has done so far."""
        self.tokens.setdefault((unit.core.index, sem), deque()).append(
            tuple(self.clocks[self.uid[unit]]))

    def wait(self, unit, sem: int) -> None:
        """The n-th wait that gets a semaphore is ordered after its n-th signal."""
        queue = self.tokens.get((unit.core.index, sem))
        if queue:
            _join(self.clocks[self.uid[unit]], queue.popleft())

    def barrier(self, core) -> None:
        """The core has drained: whatever its units did is ordered before what they do next."""
        self._join_all([self.uid[u] for u in core.units.values()])
        for shadow in self.sram[core.index].values():
            shadow.clear()
        self.dram.prune(self.clocks)

    def gbarrier(self) -> None:
        """Every core has drained and arrived: everything so far is ordered before the rest."""
        self._join_all(range(len(self.clocks)))
        for shadows in self.sram:
            for shadow in shadows.values():
                shadow.clear()
        self.dram.clear()

    def _join_all(self, uids) -> None:
        uids = list(uids)
        joined = [max(col) for col in zip(*(self.clocks[u] for u in uids))]
        for u in uids:
            self.clocks[u][:] = joined

    # ---- accesses ----------------------------------------------------------------------------

    def access(self, unit, instr) -> None:
        """Check and record the data accesses of `instr`, which `unit` starts now."""
        core = unit.core
        sram, span, span_written = accesses(instr, core.state)
        if not sram and span is None:
            return
        uid = self.uid[unit]
        clock = self.clocks[uid]
        clock[uid] += 1
        index = unit.current[0]
        acc = Access(uid, clock[uid], core.index, unit.name, index, instr, unit.env.now)
        shadows = self.sram[core.index]
        for buf, lo, hi, written in sram:
            for kind, other, a, b in shadows[buf].access(lo, hi, acc, written, clock):
                self._report(kind, other, acc, f"core{core.index} {buf}", a, b, "elements")
        if span is not None:
            dup = None
            if span_written and not core.timing_only and len(self.dram.dma_uids) > 1:
                # the bytes a store writes: its SRAM source now, when it starts
                buf, lo, hi, _ = sram[0]
                data = core.state.buffers[buf][lo:hi]
                dup = (span, data.dtype.str, hashlib.blake2b(data.tobytes(),
                                                             digest_size=16).digest())
            for kind, other, a, b in self.dram.access(span, acc, span_written, clock,
                                                      self.clocks, dup):
                self._report(kind, other, acc, "DRAM", a, b, "bytes")

    def _report(self, kind, first: Access, second: Access, space, lo, hi, units) -> None:
        key = (kind, space, first.uid, first.index, second.uid, second.index)
        if key in self._seen:
            return
        self._seen.add(key)
        err = race_error(kind, first, second, space, lo, hi, units)
        if self.mode == "error":
            raise err
        self.found.append(err)
        if len(self.found) <= WARN_LIMIT:
            warnings.warn(str(err), RaceWarning, stacklevel=2)

    def summary(self) -> None:
        """One last warning when more races were found than were issued."""
        if len(self.found) > WARN_LIMIT:
            warnings.warn(f"{len(self.found) - WARN_LIMIT} more races not shown "
                          f"({len(self.found)} in all); SimResult.races lists every one",
                          RaceWarning, stacklevel=2)


def _join(clock: list, other) -> None:
    clock[:] = map(max, clock, other)


def race_error(kind, first: Access, second: Access, space, lo, hi, units) -> RaceError:
    """The fault for `second` meeting `first` on [lo, hi) of `space`, located at `second`."""
    first_verb, second_verb = _VERBS[kind]
    if first.core == second.core:
        missing = (f"no signal/wait from {first.unit} to {second.unit} (nor a barrier) "
                   "orders them")
        hint = (f"signal a semaphore on {first.unit} after [{first.index}] and wait on it on "
                f"{second.unit} before [{second.index}], or put a barrier between them")
    else:
        missing = f"no gbarrier between core{first.core} and core{second.core} orders them"
        hint = (f"put a gbarrier after core{first.core}'s [{first.index}] and before "
                f"core{second.core}'s [{second.index}]")
    reason = (f"{kind} race on {space}[{lo:#x}:{hi:#x}] ({units}): it {second_verb} what "
              f"{describe(first)} {first_verb}, and {missing}")
    return RaceError(reason, kind=kind, buffer=space, lo=lo, hi=hi, first=first, second=second,
                     missing=missing, core=second.core, unit=second.unit, index=second.index,
                     instr=second.instr, cycle=second.cycle, hint=hint)


_VERBS = {"RAW": ("writes", "reads"), "WAR": ("reads", "writes"), "WAW": ("writes", "writes")}


def describe(acc: Access) -> str:
    """`core0.dma0 [4] load chan=0, ... (cycle 1)`: an instruction as a fault names it."""
    return f"core{acc.core}.{acc.unit} [{acc.index}] {disassemble(acc.instr)} (cycle {acc.cycle})"
