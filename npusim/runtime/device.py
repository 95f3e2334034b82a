"""The Device API: open a simulated NPU, manage its DRAM, load, run and sync programs."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from isa.checks import target_name
from isa.target import Target, TargetError

from npusim.runtime import staging
from npusim.runtime.buffers import DeviceBuffer, TensorSlot, host_array_for, parse_alloc_spec
from npusim.runtime.compat import check_compatible
from npusim.runtime.errors import (DeviceBufferError, DeviceClosedError, DeviceError,
                                   PoolError, ProgramError, RunFault)
from npusim.runtime.loader import LoadedProgram, load
from npusim.runtime.pool import MemoryPool


@dataclass(eq=False)
class RunHandle:
    """A submitted run; `Device.sync(handle)` returns its SimResult or raises its fault."""

    id: int
    program: LoadedProgram
    timing_only: bool
    result: object = field(default=None, repr=False)
    fault: RunFault | None = field(default=None, repr=False)
    synced: bool = False


class Device:
    """One simulated NPU (all cores of its Target) with its DRAM and a pool over it.

    `run` simulates at once (the model is synchronous); `sync` hands back the result and is
    where a run's fault is raised, as on a real asynchronous device queue."""

    def __init__(self, target="npu-edge", *, align: int = 64, strategy: str = "first-fit"):
        from npusim.memory import Dram  # the SimPy model is heavy; open it with the device
        try:
            self.target = Target.create(target)
        except (TargetError, TypeError) as e:
            raise DeviceError(f"cannot open device: {e}") from None
        if self.target.kind != "npu":
            raise DeviceError(f"cannot open a device for a {self.target.kind} target "
                              f"('{self.name}'); the runtime drives npu targets, e.g. npu-tiny")
        size = self.target.derived.dram_bytes
        self.dram = Dram(size)
        self.pool = MemoryPool(size, align=align, strategy=strategy, label=f"{self.name} DRAM")
        self.closed = False
        self._ids = itertools.count(1)
        self._pending: list = []
        self.runs = self.faults = self.total_cycles = 0

    @property
    def name(self) -> str:
        return target_name(self.target)

    # ---- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Release DRAM and every buffer; later use raises DeviceClosedError."""
        if not self.closed:
            self.pool.reset()
            self.closed = True
            self.dram = None

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.pool.in_use} B allocated"
        return f"<Device {self.name}: {state}>"

    # ---- memory ----------------------------------------------------------------------------

    def alloc(self, spec, dtype=None, *, name: str | None = None,
              align: int | None = None) -> DeviceBuffer:
        """`alloc(nbytes)`, `alloc(shape, dtype)` or `alloc((shape, dtype))`."""
        self._check_open("alloc")
        shape, dt, raw = parse_alloc_spec(spec, dtype)
        block = self.pool.alloc(int(np.prod(shape)) * dt.itemsize, align=align, name=name)
        return DeviceBuffer(block.addr, block.size, shape, dt, name, raw, self, block)

    def alloc_for(self, program: LoadedProgram, tensor: str) -> DeviceBuffer:
        """A buffer at the address where `program` declares `tensor`: runs use it in place."""
        self._check_open("alloc_for")
        slot = program.slot(tensor)
        try:
            block = self.pool.reserve(slot.dram, slot.nbytes, name=tensor)
        except PoolError as e:
            raise ProgramError(f"cannot place tensor '{tensor}' of {program.source} in place: "
                               f"{e}") from None
        return DeviceBuffer(block.addr, block.size, slot.shape, slot.dtype, tensor, False,
                            self, block)

    def upload(self, array, *, name: str | None = None) -> DeviceBuffer:
        """alloc + copy_to_device of a host array."""
        arr = np.asarray(array)
        buf = self.alloc(arr.shape or (1,), arr.dtype, name=name)
        self.copy_to_device(buf, arr.reshape(buf.shape))
        return buf

    def free(self, buf: DeviceBuffer) -> None:
        self.check_buffer(buf, "free")
        self.pool.free(buf.block)

    def copy_to_device(self, buf: DeviceBuffer, array) -> None:
        """Host -> device: the array must have the buffer's shape and dtype (raw: its size)."""
        self.check_buffer(buf, "copy_to_device")
        self.dram.write(buf.addr, host_array_for(buf, array))

    def copy_from_device(self, buf: DeviceBuffer) -> np.ndarray:
        """Device -> host: a new array of the buffer's shape and dtype."""
        self.check_buffer(buf, "copy_from_device")
        return np.array(self.dram.read(buf.addr, buf.shape, buf.dtype), copy=True)

    # ---- programs --------------------------------------------------------------------------

    def load_program(self, program) -> LoadedProgram:
        """A Program, a .bin/.s path, or instruction lists -> a program checked for this device."""
        self._check_open("load_program")
        loaded = load(program)
        if loaded.target is not None:
            check_compatible(loaded.target, self.target, what=loaded.source)
        for slot in loaded.tensors.values():
            if slot.end > self.target.derived.dram_bytes:
                raise ProgramError(
                    f"{loaded.source}: tensor '{slot.name}' at 0x{slot.dram:x} ({slot.nbytes} B) "
                    f"ends past the {self.target.derived.dram_bytes} B DRAM of {self.name}")
        return loaded

    def run(self, program, bindings: dict | None = None, *, timing_only: bool = False,
            max_cycles: int | None = None, trace: bool = True,
            races: str | None = None) -> RunHandle:
        """Submit a run. Bound buffers are staged into the program's tensor addresses (or used
        in place when they sit there) and copied back after; see docs/runtime.md. races: the
        race check of npusim.simulate.simulate (docs/races.md)."""
        self._check_open("run")
        loaded = program if isinstance(program, LoadedProgram) else self.load_program(program)
        plan = staging.plan(loaded, dict(bindings or {}), self)
        handle = RunHandle(next(self._ids), loaded, timing_only)
        from npusim.faults import SimulationFault
        from npusim.simulate import simulate
        undo = None if timing_only else staging.stage_in(plan, self.dram, self.pool)
        try:
            handle.result = simulate(loaded.program, self.target, dram=self.dram,
                                     timing_only=timing_only, max_cycles=max_cycles, trace=trace,
                                     races=races)
        except SimulationFault as e:
            handle.fault = RunFault(f"run {handle.id} of {loaded.source} on {self.name} "
                                    f"faulted: {e}", e)
            handle.fault.__cause__ = e
        finally:
            if undo is not None:
                staging.stage_out(plan, undo, self.dram, copy_back=handle.result is not None)
        if handle.result is not None:
            # Tensor regions were restored: result.output(name) must read the bound buffers.
            handle.result.tensors = {slot.name: (buf.addr, slot.shape, slot.dtype)
                                     for slot, buf in plan.bound}
        self._pending.append(handle)
        return handle

    def sync(self, handle: RunHandle | None = None):
        """Wait for one run (or, with no handle, every pending run) and return its SimResult
        (a list for all); raises RunFault if the run faulted. Counts cycles into stats()."""
        self._check_open("sync")
        if handle is None:
            return [self.sync(h) for h in list(self._pending)]
        if handle.synced:
            raise DeviceError(f"run {handle.id} was already synced; keep its result")
        if handle not in self._pending:
            raise DeviceError(f"run {handle.id} was not submitted to this device ({self.name})")
        self._pending.remove(handle)
        handle.synced = True
        self.runs += 1
        if handle.fault is not None:
            self.faults += 1
            raise handle.fault
        self.total_cycles += handle.result.cycles
        return handle.result

    def stats(self) -> dict:
        return {"target": self.name, "runs": self.runs, "faults": self.faults,
                "pending": len(self._pending), "total_cycles": self.total_cycles,
                "buffers": len(self.pool.live), "pool": self.pool.stats().as_dict()}

    # ---- checks ----------------------------------------------------------------------------

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise DeviceClosedError(f"{what} on closed device {self.name}; open a new Device")

    def check_buffer(self, buf, what: str) -> None:
        self._check_open(what)
        if not isinstance(buf, DeviceBuffer):
            raise DeviceBufferError(f"{what} needs a DeviceBuffer from dev.alloc; got "
                                    f"{type(buf).__name__}")
        if buf.device is not self:
            raise DeviceBufferError(f"{what}: {buf.label} belongs to another device "
                                    f"({buf.device!r}), not {self!r}")
        if buf.block not in self.pool:
            raise DeviceBufferError(f"{what}: {buf.label} at 0x{buf.addr:x} was already freed "
                                    "(double free or use after free)")


