"""Functional CONTROL and SYNC instructions: cfg register writes; sync costs (SimPy does the waiting)."""

from __future__ import annotations

from isa import timing
from isa.checks import TargetCheckError, check_cfg
from npusim.exec.state import ExecInfo
from npusim.faults import IllegalInstructionError, SyncFault


def unit_of(state, instr) -> str:
    """The unit named by a cfg/signal/wait's `unit` field, checked against the Target."""
    name = state.unit_enum[instr.fields["unit"]]
    if name not in state.regs:
        raise IllegalInstructionError(
            f"unit={name} does not exist on this Target (dma-engines={state.target.dma_engines})",
            hint=f"units are: {', '.join(state.units)}")
    return name


def cfg(instr, state, dram, timing_only):
    f = instr.fields
    unit = unit_of(state, instr)
    try:  # the assembler's rule, enforced again for words that never went through it
        check_cfg(instr)
    except TargetCheckError as e:
        raise IllegalInstructionError(str(e)) from None
    regs, reg, value = state.regs[unit], state.reg_enum[f["reg"]], f["value"]
    writes = state.reg_writes

    def commit():
        regs[reg] = value
        writes[unit] += 1
    return ExecInfo(timing.cycles(state.hw, instr)), commit


def check_semaphore(state, instr) -> int:
    sem = instr.fields["sem"]
    if sem >= state.semaphore_count:
        raise IllegalInstructionError(
            f"sem={sem} does not exist: this Target has {state.target.semaphores} semaphores",
            hint=f"use sem=0..{state.target.semaphores - 1}")
    return sem


def signal(instr, state, dram, timing_only):
    """Outside SimPy (execute() on its own) a semaphore is a plain counter in CoreState."""
    unit_of(state, instr)
    sem = check_semaphore(state, instr)

    def commit():
        state.semaphores[sem] += 1
    return ExecInfo(timing.cycles(state.hw, instr)), commit


def wait(instr, state, dram, timing_only):
    unit_of(state, instr)
    sem = check_semaphore(state, instr)
    if state.semaphores[sem] <= 0:
        raise SyncFault(f"wait on sem={sem} with value 0 would block forever outside a simulation",
                        hint="signal it first, or run the program with npusim.simulate")

    def commit():
        state.semaphores[sem] -= 1
    return ExecInfo(timing.cycles(state.hw, instr)), commit


def dispatch_only(instr, state, dram, timing_only):
    """nop, halt, barrier, gbarrier: only the dispatcher spends cycles on them."""
    return ExecInfo(timing.cycles(state.hw, instr)), None


HANDLERS = {"cfg": cfg, "signal": signal, "wait": wait, "nop": dispatch_only,
            "halt": dispatch_only, "barrier": dispatch_only, "gbarrier": dispatch_only}
