"""Exceptions that stop a simulation: each names the instruction, core, unit and the reason."""

from __future__ import annotations

from isa.asm import format_instruction
from isa.errors import NpusimError


def disassemble(instr) -> str:
    """The assembler's canonical shorthand (`gemm ibuf[0x0], ... m=16`); '' when unknown."""
    return "" if instr is None else format_instruction(instr)


class SimulationFault(NpusimError):
    """A run stopped: `reason`, plus where it happened (core, unit, instruction index, text)."""

    def __init__(self, reason: str, *, core: int | None = None, unit: str | None = None,
                 index: int | None = None, instr=None, cycle: int | None = None,
                 hint: str | None = None):
        self.reason = reason
        self.core = core
        self.unit = unit
        self.index = index
        self.instr = instr
        self.cycle = cycle
        self.hint = hint
        super().__init__(reason)

    def locate(self, *, core=None, unit=None, index=None, instr=None, cycle=None):
        """Fill in where the fault happened (the exec layer knows only the reason)."""
        for name, value in (("core", core), ("unit", unit), ("index", index),
                            ("instr", instr), ("cycle", cycle)):
            if getattr(self, name) is None and value is not None:
                setattr(self, name, value)
        self.args = (str(self),)
        return self

    @property
    def disassembly(self) -> str:
        return disassemble(self.instr)

    @property
    def where(self) -> str:
        """`core0.matrix [5] gemm ... (cycle 40)`: as much of the location as is known."""
        unit = f"core{self.core}.{self.unit}" if self.core is not None else (self.unit or "")
        text = " ".join(p for p in (unit, f"[{self.index}]" if self.index is not None else "",
                                    self.disassembly) if p)
        return f"{text} (cycle {self.cycle})" if self.cycle is not None else text

    def __str__(self) -> str:
        where = self.where
        text = f"{where}: {self.reason}" if where else self.reason
        return f"{text}; hint: {self.hint}" if self.hint else text


class IllegalInstructionError(SimulationFault):
    """An undecodable word, or a legal word the Target cannot run (channel, unit, size)."""


class MemoryFault(SimulationFault):
    """An out-of-bounds, oversized or misaligned DRAM or SRAM access."""


class SyncFault(SimulationFault):
    """Semaphore overflow, or cores meeting at global barriers with different ids."""


class RaceError(SimulationFault):
    """Two units touch overlapping data and nothing orders them (npusim.race, docs/races.md).

    `kind` is RAW, WAR or WAW; `buffer` is "core0 ibuf" (element range) or "DRAM" (byte
    range); [lo, hi) is where they overlap; `first` and `second` (npusim.race.shadow.Access:
    core, unit, index, instr, cycle) are the earlier and the later instruction; `missing` says
    which ordering would fix it. The fault's location is the second instruction's."""

    def __init__(self, reason: str, *, kind=None, buffer=None, lo=None, hi=None, first=None,
                 second=None, missing=None, **where):
        self.kind, self.buffer, self.lo, self.hi = kind, buffer, lo, hi
        self.first, self.second, self.missing = first, second, missing
        super().__init__(reason, **where)


class RaceWarning(UserWarning):
    """A race found with races="warn": the RaceError's text; the run goes on."""


class InputError(SimulationFault):
    """The program, inputs or DRAM given to simulate() do not fit the Target or each other."""


class _UnitReport(SimulationFault):
    """A fault about the whole machine: `waiting` maps every unit to what it is doing."""

    def __init__(self, reason: str, waiting: dict[str, str], **where):
        self.waiting = dict(waiting)
        super().__init__(reason, **where)

    def __str__(self) -> str:
        lines = [f"{type(self).__name__}: {self.reason}"]
        lines += [f"  {unit}: {what}" for unit, what in self.waiting.items()]
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class DeadlockError(_UnitReport):
    """The event queue ran dry with units still blocked; `waiting` says on what, per unit."""


class CycleLimitExceeded(_UnitReport):
    """The run reached max_cycles before every core finished; `waiting` says what each unit does."""
