"""Checked access to SRAM operands of one instruction (bounds and Target limits)."""

from __future__ import annotations

from isa.timing import RULES
from npusim.faults import IllegalInstructionError, MemoryFault

_SHAPE_FIELDS: dict = {}  # id(spec) -> its fields that are not addresses


def shape_key(instr, dataflow: str = "ws", weight_buffers: int = 1) -> tuple:
    """The instruction with its SRAM and DRAM addresses left out: (spec, its cycle rule on
    `dataflow` with `weight_buffers` weight banks, other field values). Two instructions with one key on one Target have the
    same extents and the same cost."""
    spec = instr.spec
    names = _SHAPE_FIELDS.get(id(spec))
    if names is None:
        names = _SHAPE_FIELDS[id(spec)] = tuple(
            f.name for f in spec.fields if f.buffer is None and f.name != "dram")
    f = instr.fields
    # the rule itself too: isa.timing.override may swap it while a CoreState lives on
    return (id(spec), RULES[spec.timing_for(dataflow, weight_buffers)], *[f[n] for n in names])


def check_sram(state, buf: str, addr: int, count: int, field: str) -> None:
    """Fault unless `count` elements at element address `addr` fit in buffer `buf`."""
    size = state.sizes[buf]
    if addr + count > size:
        raise MemoryFault(
            f"{buf} overflow: operand '{field}' at element address {addr} with extent {count} "
            f"ends at {addr + count}, past the {buf} size of {size} elements",
            hint=f"keep {field} + extent <= {size} (buffer-elems of {buf} on this Target)")


def read(state, buf: str, addr: int, count: int):
    """A copy of `count` elements: sources are read when the instruction issues."""
    return state.buffers[buf][addr:addr + count].copy()


def writer(state, buf: str, addr: int, values):
    """The commit of a result: written into SRAM when the instruction completes."""
    flat = values.reshape(-1)
    target = state.buffers[buf]

    def commit():
        target[addr:addr + flat.size] = flat
    return commit


def check_limit(name: str, value: int, limit: int, what: str, hint: str) -> None:
    if value > limit:
        raise IllegalInstructionError(f"{name}={value} exceeds {what} of {limit}", hint=hint)


def require_int_mode(state, mnemonic: str) -> None:
    """Integer-only rounding/lookup operations have no meaning on fp16 data."""
    if state.dtype != "int8":
        raise IllegalInstructionError(
            f"{mnemonic} is defined only for the int8 datapath; this Target has dtype={state.dtype}",
            hint="in fp16 mode scale with vmul and activate with vrelu/vclip")
