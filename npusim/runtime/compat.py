"""Whether a binary built for one npu Target may run on another (the device's, or -t's)."""

from __future__ import annotations

from isa.checks import target_name
from isa.target import Target, TargetError

from npusim.runtime.errors import ProgramError

# Attributes baked into the binary: field limits (array, its dataflow, buffer sizes) and
# element width.
SAME = ("dtype", "array", "dataflow", "ibuf_kb", "wbuf_kb", "abuf_kb", "obuf_kb")
# Resources the binary indexes: a machine with more of them still runs it.
AT_LEAST = ("num_cores", "dma_engines", "semaphores", "dram_mb")
# Everything else (bandwidths, latencies, lanes, clock, energy) only changes timing: what DSE
# varies when it re-simulates one binary.


def _show(target: Target, key: str) -> str:
    attr = target.spec.attr(key)
    return f"-{attr.name}={attr.format(getattr(target, key))}"


def check_compatible(program_target, device_target, what: str = "program") -> None:
    """Raise ProgramError naming each attribute that makes the binary illegal on the device."""
    try:
        prog = Target.create(program_target)
    except TargetError as e:
        raise ProgramError(f"{what}: its target {str(program_target)!r} is invalid: {e}") \
            from None
    dev = Target.create(device_target)
    if prog.kind != dev.kind:
        raise ProgramError(f"{what} was built for target kind '{prog.kind}' "
                           f"({target_name(prog)}) but the device's kind is '{dev.kind}' "
                           f"({target_name(dev)})")
    problems = [f"{_show(prog, k)} vs {_show(dev, k)}" for k in SAME
                if getattr(prog, k) != getattr(dev, k)]
    problems += [f"{_show(prog, k)} needs at least that, device has {_show(dev, k)}"
                 for k in AT_LEAST if getattr(prog, k) > getattr(dev, k)]
    if problems:
        raise ProgramError(
            f"{what} built for {target_name(prog)} cannot run on {target_name(dev)}: "
            + "; ".join(problems) + ". Use a target with the program's "
            + ", ".join(dev.spec.attr(k).name for k in SAME) + " "
            "(only timing attributes such as -dram-bw may differ), or rebuild the program")
