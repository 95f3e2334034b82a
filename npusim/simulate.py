"""simulate(): run an assembled program on the SimPy model of a Target; SimResult holds the outcome."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from isa.codec import Instruction, decode_word
from isa.errors import DecodeError
from npusim import stats
from npusim.faults import IllegalInstructionError, InputError
from npusim.hw import energy
from npusim.memory import Dram
from npusim.race import MODES
from npusim.system import System


@dataclass
class SimResult:
    """Cycles, counters, energy, trace and the final DRAM of one run (see docs/counters.md)."""

    cycles: int
    instructions: int
    units: dict
    utilization: float
    dram_bytes: dict
    dram_bw_achieved: float
    energy_pj: dict        # mac, sram, dram, vector, static, total (npusim.hw.energy.energy_pj)
    macs: int
    sim_wall_s: float
    timing_only: bool
    target: object
    dram: Dram
    tensors: dict = field(default_factory=dict)
    races: list = field(default_factory=list)  # RaceErrors found with races="warn"
    _rows: list | None = field(default=None, repr=False)
    _trace: pd.DataFrame | None = field(default=None, repr=False)
    _queue_stalls: list | None = field(default=None, repr=False)
    # pJ by component (mac, vector, sram_<buffer>, dram, leakage); sums to energy_pj["total"]
    energy_breakdown: dict = field(default_factory=dict)

    @property
    def trace(self) -> pd.DataFrame:
        """core, unit, index, mnemonic, start, end, bytes, macs, stall, dispatched, and the
        stall by cause (stall_token, stall_dram, stall_queue, stall_barrier) per instruction."""
        if self._trace is None:
            self._trace = stats.trace_frame(self._rows, self._queue_stalls)
        return self._trace

    @property
    def latency_s(self) -> float:
        return self.cycles / (self.target.freq_mhz * 1e6)

    def output(self, name: str) -> np.ndarray:
        """A declared tensor (program.tensors) read back from DRAM after the run."""
        if name not in self.tensors:
            raise KeyError(f"no tensor named '{name}'; the program declares: "
                           f"{', '.join(self.tensors) or '(none)'}")
        addr, shape, dtype = _decl(self.tensors[name])
        return self.dram.read(addr, shape, dtype)

    def to_json(self) -> dict:
        return {"target": str(self.target), "timing_only": self.timing_only,
                "cycles": self.cycles, "latency_s": self.latency_s,
                "instructions": self.instructions, "macs": self.macs,
                "utilization": self.utilization, "dram_bytes": dict(self.dram_bytes),
                "dram_bw_achieved": self.dram_bw_achieved, "units": self.units,
                "energy_pj": self.energy_pj, "energy_breakdown": self.energy_breakdown,
                "sim_wall_s": self.sim_wall_s, "races": len(self.races)}

    def chrome_trace(self) -> dict:
        return stats.chrome_trace(self.trace, list(self.units),
                                  {"target": str(self.target), "cycles": self.cycles})

    def save_chrome_trace(self, path) -> None:
        from isa.files import write_atomic
        write_atomic(path, json.dumps(self.chrome_trace()))


def _decl(decl):
    """(dram, shape, dtype) of a TensorDecl or a plain tuple."""
    if hasattr(decl, "dram"):
        return decl.dram, tuple(decl.shape), np.dtype(decl.dtype)
    addr, shape, dtype = decl
    return addr, tuple(shape), np.dtype(dtype)


def _decode_stream(core: int, items) -> list:
    """Decode words once (repeated words share one Instruction); keep faults for dispatch.
    Equal Instruction objects are shared too: what the simulator works out per instruction
    (Core.route, the units' timing-only memo) is then worked out once per distinct one."""
    cache: dict[int, Instruction] = {}
    known = cache.get
    shared: dict = {}  # (spec, its field items) -> the first Instruction of that content
    out = []
    append = out.append
    for index, item in enumerate(items):
        if type(item) is int:  # most words repeat: one dict lookup, no conversion
            instr = known(item)
            if instr is not None:
                append(instr)
                continue
        elif isinstance(item, Instruction):
            append(shared.setdefault((id(item.spec), tuple(item.fields.items())), item))
            continue
        word = int(item)
        instr = cache.get(word)
        if instr is None:
            try:
                instr = cache[word] = decode_word(word)
            except DecodeError as e:
                # Raised only if dispatch reaches it, as hardware faults on fetch.
                out.append(IllegalInstructionError(str(e), core=core, index=index,
                                                   unit="dispatch"))
                continue
        out.append(instr)
    return out


def _streams(program) -> tuple[list[list], dict, object]:
    """(per-core instruction lists, tensors, program target) from any accepted program form."""
    if hasattr(program, "cores"):  # isa.asm.Program: words per core
        streams = [_decode_stream(c, words) for c, words in enumerate(program.cores)]
        return streams, dict(getattr(program, "tensors", {}) or {}), getattr(program, "target",
                                                                             None)
    items = list(program)
    if not items or not isinstance(items[0], (list, tuple)):
        items = [items]
    return [_decode_stream(c, s) for c, s in enumerate(items)], {}, None


def _bind_inputs(dram: Dram, tensors: dict, inputs: dict) -> None:
    for name, value in inputs.items():
        if name not in tensors:
            raise InputError(f"input '{name}' is not a declared tensor; the program declares: "
                             f"{', '.join(tensors) or '(none)'}",
                             hint="declare it with .tensor in the assembly")
        addr, shape, dtype = _decl(tensors[name])
        arr = np.asarray(value)
        if arr.shape != shape:
            raise InputError(f"input '{name}' has shape {arr.shape}, the tensor is {shape}")
        cast = arr.astype(dtype)
        if arr.dtype != dtype and not np.array_equal(cast, arr):
            raise InputError(f"input '{name}' of dtype {arr.dtype} does not fit the tensor's "
                             f"{dtype} without changing values", hint=f"pass a {dtype} array")
        dram.write(addr, cast)


def simulate(program, target=None, dram: Dram | None = None, inputs: dict | None = None,
             timing_only: bool = False, max_cycles: int | None = None,
             trace: bool = True, races: str | None = None) -> SimResult:
    """Run `program` (isa.asm.Program, list of per-core Instruction lists, or one list) on `target`.

    Functional mode computes every result in `dram` and the buffers; timing_only skips all data
    work and gives the same cycles. Raises a SimulationFault subclass when the program faults.

    races: "error" stops at the first access two units make to overlapping data that no
    signal/wait, barrier or gbarrier orders (a RaceError, docs/races.md); "warn" issues a
    RaceWarning per race and lists them in SimResult.races; "off" skips the check. None (the
    default): "error" in functional mode, "off" with timing_only, which has no data to tell
    duplicate stores of the same bytes apart (asked for, it checks addresses alone). The check
    only observes: it never changes a cycle.
    """
    from isa.target import Target
    wall = time.perf_counter()
    if races is None:
        races = "off" if timing_only else "error"
    if races not in MODES:
        raise InputError(f"races={races!r} is not a race-check mode; use one of "
                         f"{', '.join(map(repr, MODES))}")
    streams, tensors, program_target = _streams(program)
    if target is None and program_target is None:
        raise InputError("no target: pass one (e.g. 'npu-edge') or assemble with .target")
    target = Target.create(target if target is not None else program_target)
    if target.kind != "npu":
        raise InputError(f"simulate() runs npu targets; got a {target.kind} target ({target})")
    if len(streams) > target.num_cores:
        raise InputError(f"the program has {len(streams)} core streams but the Target has "
                         f"num-cores={target.num_cores}",
                         hint=f"use a target with -num-cores={len(streams)}")
    if dram is None:
        dram = Dram(target.derived.dram_bytes)
    if inputs:
        _bind_inputs(dram, tensors, inputs)
    system = System(target, streams, dram, timing_only=timing_only, trace=trace, races=races)
    cycles = system.run(max_cycles)
    if system.races is not None:
        system.races.summary()
    work = stats.work_totals(system)
    dram_bytes = dict(system.port.bytes)
    moved = dram_bytes["read"] + dram_bytes["write"]
    peak = cycles * target.derived.peak_macs_per_cycle
    units = stats.unit_counters(system, cycles)
    breakdown = energy.energy_breakdown(target, work, moved, cycles)
    return SimResult(
        cycles=cycles,
        instructions=sum(u["instructions"] for u in units.values()),
        units=units,
        utilization=work["macs"] / peak if peak else 0.0,
        dram_bytes=dram_bytes,
        dram_bw_achieved=moved / cycles if cycles else 0.0,
        energy_pj=energy.energy_pj(breakdown), energy_breakdown=breakdown,
        macs=work["macs"],
        sim_wall_s=time.perf_counter() - wall,
        timing_only=timing_only, target=target, dram=dram, tensors=tensors,
        races=list(system.races.found) if system.races is not None else [],
        _rows=system.trace_rows, _queue_stalls=system.queue_stall_rows)
