"""Pure functional execution of one instruction on a CoreState (no SimPy): effect + uncontended cycles.

`execute(instr, state, dram)` applies the instruction at once; the SimPy units use `issue`, which
reads the sources and returns the ExecInfo plus a `commit` that writes the results, so a unit
can read when an instruction starts and write when it ends, as the hardware does.
"""

from __future__ import annotations

from isa.spec import load_spec
from npusim.exec import control, dma, matrix, vector
from npusim.exec.state import BUFFERS, CoreState, ExecInfo
from npusim.faults import SimulationFault

HANDLERS = {"dma_load": dma.dma_load, "dma_store": dma.dma_store,
            "gemm": matrix.gemm, "conv": matrix.conv, "dwconv": matrix.dwconv, **vector.HANDLERS, **control.HANDLERS}

_missing = [i.mnemonic for i in load_spec().instructions if i.ref not in HANDLERS]
if _missing:  # a spec instruction the model cannot run must fail loudly, not at run time
    raise ImportError(f"npusim.exec has no handler for: {', '.join(_missing)}")


def issue(instr, state: CoreState, dram, timing_only: bool = False):
    """Check the instruction, read its sources; return (ExecInfo, commit or None)."""
    try:
        return HANDLERS[instr.spec.ref](instr, state, dram, timing_only)
    except SimulationFault as e:
        raise e.locate(instr=instr)


def execute(instr, state: CoreState, dram, timing_only: bool = False) -> ExecInfo:
    """Apply `instr` to `state` and `dram` now; return its uncontended cost."""
    info, commit = issue(instr, state, dram, timing_only)
    if commit is not None:
        commit()
    return info


__all__ = ["execute", "issue", "CoreState", "ExecInfo", "BUFFERS", "HANDLERS"]
