"""Moves bound buffers into a program's fixed tensor addresses for a run, and back after.

A program reads and writes DRAM at the addresses its `.tensor` lines declare. For a run the
device (1) saves the bytes of other live buffers those regions overlap, (2) zero-fills
unbound tensors, (3) copies each bound buffer to its tensor's address (a buffer already
there runs in place), then after the run (4) restores the saved bytes and (5) copies each
moved tensor back into its buffer. User buffers are therefore never clobbered by a run.
"""

from __future__ import annotations

from dataclasses import dataclass

from npusim.runtime.buffers import DeviceBuffer
from npusim.runtime.errors import ProgramError


@dataclass(frozen=True)
class Plan:
    slots: tuple         # every TensorSlot of the program
    bound: tuple         # (slot, buffer) pairs
    moved: tuple         # the bound pairs whose buffer is not at the tensor's address

    @property
    def in_place(self) -> set:
        return {buf.block.serial for slot, buf in self.bound if buf.addr == slot.dram}


def plan(loaded, bindings: dict, device) -> Plan:
    """Check the bindings (names, buffers, shapes) before anything is touched."""
    seen = {}
    bound = []
    for name, buf in bindings.items():
        slot = loaded.slot(name)
        if not isinstance(buf, DeviceBuffer):
            raise ProgramError(f"binding for tensor '{name}' must be a DeviceBuffer from "
                               f"dev.alloc; got {type(buf).__name__}")
        device.check_buffer(buf, f"run (binding '{name}')")
        if id(buf) in seen:
            raise ProgramError(f"{buf.label} is bound to both '{seen[id(buf)]}' and '{name}'; "
                               "bind each tensor to its own buffer")
        seen[id(buf)] = name
        slot.check_binding(buf)
        bound.append((slot, buf))
    moved = tuple((s, b) for s, b in bound if b.addr != s.dram)
    return Plan(tuple(loaded.tensors.values()), tuple(bound), moved)


def stage_in(plan: Plan, dram, pool) -> list:
    """Steps 1-3; returns the saved (addr, bytes) pieces that stage_out restores."""
    mem = dram.bytes
    in_place = plan.in_place
    saved = []
    for slot in plan.slots:
        for block in pool.overlapping(slot.dram, slot.nbytes):
            if block.serial not in in_place:
                lo, hi = max(block.addr, slot.dram), min(block.end, slot.end)
                saved.append((lo, mem[lo:hi].copy()))
    # Read every bound buffer before writing anything: tensors may overlap other buffers.
    data = [(slot, mem[buf.addr:buf.addr + buf.nbytes].copy()) for slot, buf in plan.bound]
    bound_names = {slot.name for slot, _ in plan.bound}
    for slot in plan.slots:
        if slot.name not in bound_names:
            mem[slot.dram:slot.end] = 0
    for slot, raw in data:
        mem[slot.dram:slot.end] = raw
    return saved


def stage_out(plan: Plan, saved: list, dram, copy_back: bool) -> None:
    """Steps 4-5; after a fault only step 4, so moved buffers keep their inputs."""
    mem = dram.bytes
    results = [(buf, mem[slot.dram:slot.end].copy()) for slot, buf in plan.moved] \
        if copy_back else []
    for addr, raw in reversed(saved):
        mem[addr:addr + raw.size] = raw
    for buf, raw in results:
        mem[buf.addr:buf.addr + buf.nbytes] = raw
