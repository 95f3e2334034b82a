"""Target-dependent legality of one instruction, driven by the spec's target_max and buffer keys."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping

from isa.codec import Instruction
from isa.errors import IsaError, SpecError
from isa.operands import Extent, dram_end, extents, window_kind, window_out_hw
from isa.spec import FieldSpec, load_spec
from isa.timing import depthwise_cols


class TargetCheckError(IsaError):
    """An instruction is legal ISA but does not fit the Target (array, buffers, DMA, semaphores)."""

    def __init__(self, message: str, field: str | None = None, value=None):
        super().__init__(message)
        self.field, self.value = field, value


def target_name(target) -> str:
    """Short name for messages: the tag, plus only the options that differ from it."""
    # Target equality ignores the tag (npu-edge == plain npu), so the tag is part of the key.
    return _target_name(target, target.tag)


@lru_cache(maxsize=64)  # called per checked instruction; Targets are immutable and hashable
def _target_name(target, tag) -> str:
    from isa.target import Target  # isa.target is heavier than the checks need at import

    name = target.tag or target.kind
    # the attributes that differ from the tag, then (against the tag with those) the ones tied
    # to them (Attr.only_with) that still differ: `npu-edge -dataflow=os` has the npu kind's
    # one weight bank by itself, and its name re-parses to the same Target
    tag = Target(name).attrs
    free = {a.key: target.attrs[a.key] for a in target.spec.attrs
            if a.only_with is None and target.attrs[a.key] != tag[a.key]}
    tied = Target(name, **free).attrs
    diffs = [f"-{a.name}={a.format(target.attrs[a.key])}" for a in target.spec.attrs
             if a.key in free or target.attrs[a.key] != tied[a.key]]
    return " ".join([name, *diffs])


# target_max name -> (lo, hi) legal values on a Target; the spec names these, checks apply them.
TARGET_LIMITS: dict[str, Callable] = {
    "dma_chan": lambda t: (0, t.dma_engines - 1),
    "array_rows": lambda t: (1, t.array_rows),
    "array_cols": lambda t: (1, t.array_cols),
    # dwconv's channels: the array's columns where it has the depthwise mode, else none
    "depthwise_cols": lambda t: (1, depthwise_cols(t)),
    "semaphore": lambda t: (0, t.semaphores - 1),
    "dram_addr": lambda t: (0, t.derived.dram_bytes - 1),
}

# what a limit with no legal value (hi < lo) means on the Target, and the fix
_EMPTY_LIMIT_HINTS = {"depthwise_cols": ": the array has no depthwise mode; hint: a Target "
                                        "with -depthwise-mode=1 (and -dataflow=ws)"}


# The unit class (spec `registers.*.unit`) of every unit the spec's `unit` enum names: the
# DMA channels dma0, dma1, ... are all of class "dma", the others their own class.
UNIT_CLASS = {u: u.rstrip("0123456789") for u in load_spec().enums["unit"].values}


def core_units(dma_engines: int) -> list[str]:
    """Names of the units of a core with `dma_engines` DMA channels, in the spec's enum order:
    matrix, vector, dma0..dma{k-1}."""
    return list(_core_units(dma_engines))


@lru_cache(maxsize=None)  # asked once per checked cfg/signal/wait
def _core_units(dma_engines: int) -> tuple[str, ...]:
    return tuple(u for u, c in UNIT_CLASS.items() if c != "dma" or int(u[3:]) < dma_engines)


def target_units(target) -> list[str]:
    """Names of the units a core of `target` has: matrix, vector, dma0..dma{k-1}."""
    return core_units(target.dma_engines)


def reset_registers() -> dict[str, int]:
    """The config register file after reset (every register of every unit class)."""
    return {name: r.reset for name, r in load_spec().registers.items()}


@lru_cache(maxsize=1)
def _reset_file() -> Mapping[str, int]:
    """reset_registers() once: check_instruction reads it per instruction, never writes it."""
    return reset_registers()


def executing_unit(instr: Instruction) -> str:
    """The unit whose queue receives `instr` (spec `unit`: a name or 'field:<name>')."""
    unit = instr.spec.unit
    if not unit.startswith("field:"):
        return unit
    name = unit[6:]
    value = instr.fields[name]
    if name == "chan":
        return f"dma{value}"
    return load_spec().enums["unit"].names[value]


def check_instruction(instr: Instruction, target=None,
                      regs: Mapping[str, int] | None = None) -> None:
    """Raise TargetCheckError if `instr` cannot run on `target`.

    `regs` is the config register file of the executing unit at this point of the stream
    (reset values when omitted); conv, pool and DMA extents depend on it. With target None
    only the target-independent rules (cfg register ownership and range) are checked.
    """
    if target is not None and _passes(instr, target, regs):
        return
    _check_each_rule(instr, target, regs)


def reads_registers(instr: Instruction) -> bool:
    """Whether check_instruction's verdict on `instr` depends on its unit's registers (a
    conv or pool window, a DMA's planes): for every other instruction it is the same under
    any register file."""
    return window_kind(instr) is not None or instr.spec.cls == "dma"  # (as _Plan's)


def _check_each_rule(instr: Instruction, target, regs: Mapping[str, int] | None) -> None:
    """check_instruction's rules one by one, in order, raising the first that fails."""
    check_cfg(instr)
    if target is None:
        return
    if target.kind != "npu":
        raise TargetCheckError(f"target '{target_name(target)}' is a {target.kind} target; "
                               "NPU programs need an npu target such as npu-edge")
    facts = _facts(target, target.tag)
    plan = _plan(instr, facts.dataflow)
    for f, limit in plan.limited:
        _check_limit(instr, f, limit, facts)
    regs = {**_reset_file(), **regs} if regs else _reset_file()
    if plan.window:
        _out_hw(instr, regs, plan.window)  # an empty output first: its extents would be meaningless
    touched = extents(instr, regs)
    for f in plan.buffered:
        _check_buffer(instr, f, facts.buffer_elems, touched.get(f.name), facts.name)
    if plan.dma:
        _check_dram_extent(instr, facts, regs)


class _Facts:
    """What check_instruction reads of one npu Target, read once per Target: its name for
    messages, the TARGET_LIMITS ranges, its units, buffer sizes, element bytes and DRAM."""

    def __init__(self, target):
        self.name = target_name(target)
        self.limits = {key: limit(target) for key, limit in TARGET_LIMITS.items()}
        self.units = target_units(target)
        self.dma_engines = target.dma_engines
        self.buffer_elems = target.derived.buffer_elems
        self.elem_bytes = target.derived.elem_bytes
        self.dram_bytes = target.derived.dram_bytes
        self.dataflow = target.dataflow


@lru_cache(maxsize=64)  # Targets are immutable; equality ignores the tag, the name does not
def _facts(target, tag) -> _Facts:
    return _Facts(target)


_LAST: list = [None, None]  # [the Target checked last, its _Facts]: a compiler asks per instruction


def _facts_of(target) -> _Facts:
    if _LAST[0] is not target:  # hashing a Target (some 30 values) costs more than a check
        _LAST[:] = target, _facts(target, target.tag)
    return _LAST[1]


class _Fast:
    """One spec entry's rules on one Target, as plain tuples for _passes: the Target-limited
    fields' legal (lo, hi) (a unit field: its legal codes), the buffer address fields (their
    fixed buffer, or the field that selects it), the window kind and the DMA's element bytes."""

    def __init__(self, instr: Instruction, facts: _Facts):
        self.ins = instr.spec
        plan = _plan(instr, facts.dataflow)
        units = load_spec().enums["unit"].names
        self.ranges, self.units, self.ok = [], [], True
        for f, limit in plan.limited:
            if limit == "unit":
                self.units.append((f.name, frozenset(v for v, u in units.items()
                                                     if u in facts.units)))
            elif limit in facts.limits:
                self.ranges.append((f.name, *facts.limits[limit]))
            else:  # an unknown target_max: the rule-by-rule check raises its SpecError
                self.ok = False
        buffers = load_spec().enums["buf"]
        self.buffers = tuple((f.name, f.buffer if f.buffer in buffers.values else None,
                              f.buffer) for f in plan.buffered)
        self.window = plan.window
        self.dma = plan.dma
        # a load/store's SRAM address field, whose buffer's element bytes its DRAM bytes take
        self.sram = next((b for b in self.buffers if b[0] == "sram"), None)
        if self.dma and self.sram is None:
            self.ok = False
        self.cfg = instr.spec.mnemonic == "cfg"


_FAST: dict = {}  # (id(_Facts), id(InstructionSpec)) -> _Fast (which holds the entry alive)


def _passes(instr: Instruction, target, regs: Mapping[str, int] | None) -> bool:
    """Whether `instr` passes every rule of check_instruction on the npu `target` (False
    also where a rule might fail: then the rules are checked one by one, and the first that
    fails raises its error). The same rules, read from per-entry tuples."""
    if target.kind != "npu":
        return False
    facts = _facts_of(target)
    key = (id(facts), id(instr.spec))
    fast = _FAST.get(key)
    if fast is None or fast.ins is not instr.spec:
        fast = _FAST[key] = _Fast(instr, facts)
    if fast.cfg or not fast.ok:  # a cfg: few, and its rule reads the spec's registers
        return False
    f = instr.fields
    for name, lo, hi in fast.ranges:
        if not lo <= f[name] <= hi:
            return False
    for name, codes in fast.units:
        if f[name] not in codes:
            return False
    if fast.window or fast.dma:  # only these read the unit's registers
        regs = {**_reset_file(), **regs} if regs else _reset_file()
        if fast.window:
            oh, ow = window_out_hw(fast.window, f, regs)
            if oh < 1 or ow < 1:
                return False
    touched = extents(instr, regs)
    elems, names = facts.buffer_elems, _buffer_names()
    for name, fixed, selector in fast.buffers:
        size = elems[fixed or names[f[selector]]]
        start = f[name]
        if start >= size:
            return False
        extent = touched.get(name)
        if extent is not None and start + extent.count > size:
            return False
    if fast.dma:
        _, fixed, selector = fast.sram
        elem = facts.elem_bytes[fixed or names[f[selector]]]
        if dram_end(f, regs["dma_planes"], regs["dma_plane_stride"], elem) > facts.dram_bytes:
            return False
    return True


@lru_cache(maxsize=1)
def _buffer_names() -> Mapping[int, str]:
    return load_spec().enums["buf"].names


class _Plan:
    """What check_instruction reads of one spec entry on one dataflow, looked up once per
    entry (a compiler checks some 10^4 instructions per model): its Target-limited fields with
    their limit there (the spec's [dataflow] table: an output-stationary gemm's k is free), its
    buffer address fields, its window kind (conv/pool) and whether it is a DMA."""

    def __init__(self, instr: Instruction, dataflow: str):
        self.ins = instr.spec
        limits = instr.spec.limits_for(dataflow)
        self.limited = tuple((f, limits[f.name]) for f in instr.spec.fields if f.name in limits)
        self.buffered = tuple(f for f in instr.spec.fields if f.buffer)
        self.window = window_kind(instr)
        self.dma = instr.spec.cls == "dma"


_PLANS: dict = {}  # (id(InstructionSpec), dataflow) -> _Plan (which holds the entry alive)


def _plan(instr: Instruction, dataflow: str) -> _Plan:
    key = (id(instr.spec), dataflow)
    plan = _PLANS.get(key)
    if plan is None or plan.ins is not instr.spec:
        plan = _PLANS[key] = _Plan(instr, dataflow)
    return plan


def _check_limit(instr: Instruction, f: FieldSpec, limit: str, facts: _Facts) -> None:
    value, name = instr.fields[f.name], facts.name
    if limit == "unit":
        units = facts.units
        unit = load_spec().enums["unit"].names[value]
        if unit not in units:
            raise TargetCheckError(
                f"{instr.mnemonic}: field '{f.name}' value {unit} is not a unit of {name} "
                f"(units: {', '.join(units)}; dma_engines={facts.dma_engines})", f.name, unit)
        return
    if limit not in TARGET_LIMITS:
        raise SpecError(f"instruction '{instr.mnemonic}': field '{f.name}' names unknown "
                        f"target_max '{limit}'; known: unit, {', '.join(TARGET_LIMITS)}")
    lo, hi = facts.limits[limit]
    if not lo <= value <= hi:
        shown = f"{value:#x}" if limit == "dram_addr" else str(value)
        bound = f"{lo:#x}..{hi:#x}" if limit == "dram_addr" else f"{lo}..{hi}"
        hint = _EMPTY_LIMIT_HINTS.get(limit, "") if hi < lo else ""
        raise TargetCheckError(f"{instr.mnemonic}: field '{f.name}' value {shown} out of range "
                               f"{bound} ({limit} of {name}){hint}", f.name, value)


def _buffer_of(instr: Instruction, f: FieldSpec) -> str:
    buffers = load_spec().enums["buf"]
    if f.buffer in buffers.values:
        return f.buffer
    return buffers.names[instr.fields[f.buffer]]


def _check_buffer(instr: Instruction, f: FieldSpec, elems: Mapping[str, int],
                  extent: Extent | None, name: str) -> None:
    buf = _buffer_of(instr, f)
    start, size = instr.fields[f.name], elems[buf]
    if start >= size:
        raise TargetCheckError(f"{instr.mnemonic}: {buf} address {start} out of range "
                               f"0..{size - 1} for {name} (field '{f.name}')", f.name, start)
    if extent is None:
        return
    count, formula = extent.count, extent.formula
    if start + count > size:
        raise TargetCheckError(
            f"{instr.mnemonic}: {buf} region of {count} elements ({formula}) at {start:#x} "
            f"ends at {start + count:#x}, past {buf}'s {size} elements on {name} "
            f"(field '{f.name}'); lower the address or split the tile", f.name, start)


def _check_dram_extent(instr: Instruction, facts: _Facts, regs: Mapping[str, int]) -> None:
    """The last DRAM byte a load/store touches: rows `stride` apart, planes `dma_plane_stride`."""
    f, name = instr.fields, facts.name
    elem = facts.elem_bytes[_buffer_of(instr, instr.spec.field_map["sram"])]
    end = dram_end(f, regs["dma_planes"], regs["dma_plane_stride"], elem)
    size = facts.dram_bytes
    if end > size:
        raise TargetCheckError(
            f"{instr.mnemonic}: DRAM bytes {f['dram']:#x}..{end:#x} (rows={f['rows']} "
            f"stride={f['stride']}, cols={f['cols']} x {elem} B, dma_planes="
            f"{regs['dma_planes']}) end past the {size} bytes of DRAM of {name} (field 'dram')",
            "dram", f["dram"])


def _out_hw(instr: Instruction, regs: Mapping[str, int], kind: str) -> tuple[int, int]:
    f = instr.fields
    oh, ow = window_out_hw(kind, f, regs)
    if oh < 1 or ow < 1:
        kh, kw = regs[f"{kind}_kh"], regs[f"{kind}_kw"]
        raise TargetCheckError(
            f"{instr.mnemonic}: output would be empty ({oh}x{ow}) for a {f['in_h']}x{f['in_w']} "
            f"input with a {kh}x{kw} {kind} window; check the {kind}_* registers",
            "in_h", f["in_h"])
    return oh, ow


def check_cfg(instr: Instruction) -> None:
    """A cfg must write a register of its unit's class with a value in the register's range."""
    if instr.mnemonic != "cfg":
        return
    spec = load_spec()
    unit = spec.enums["unit"].names[instr.fields["unit"]]
    reg = spec.registers[spec.enums["reg"].names[instr.fields["reg"]]]
    if UNIT_CLASS[unit] != reg.unit:
        owners = [u for u, c in UNIT_CLASS.items() if c == reg.unit]
        hint = "unit=matrix" if reg.unit == "matrix" else (
            "unit=vector" if reg.unit == "vector" else "unit=dma0 (or the channel's dmaN)")
        which = f" ({owners[0]}..{owners[-1]})" if len(owners) > 1 else ""
        raise TargetCheckError(f"cfg: register {reg.name} belongs to the {reg.unit} unit{which}, "
                               f"not {unit}; write it with {hint}", "reg", reg.name)
    lo, hi = reg.range
    value = instr.fields["value"]
    if not lo <= value <= hi:
        raise TargetCheckError(f"cfg: {reg.name} value {value} out of range {lo}..{hi} "
                               f"({reg.doc})", "value", value)
