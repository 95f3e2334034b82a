"""Architectural state of one core: the four SRAM buffers and every unit's config registers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from isa.checks import UNIT_CLASS, target_units
from isa.spec import load_spec
from isa.timing import HwParams

BUFFERS = load_spec().buffer_names  # ibuf, wbuf, abuf, obuf


@dataclass
class ExecInfo:
    """What one instruction cost, uncontended: its unit's cycles and the work it did."""

    cycles: int
    dram_bytes: int = 0
    macs: int = 0
    vector_ops: int = 0
    fill_elems: int = 0    # SRAM elements a padded load's zero fill walks (operands.dma_elems)
    sram: tuple = ()       # ((buffer, bytes read + written), ...): SRAM energy is per buffer

    @property
    def sram_bytes(self) -> int:
        """SRAM bytes touched, all buffers."""
        return sum(n for _, n in self.sram)


class CoreState:
    """Buffers sized and typed from the Target, and registers at their spec reset values."""

    def __init__(self, target):
        from isa.target import Target  # deferred: the Target registry is not needed to import us
        target = Target.create(target)
        self.target = target
        self.spec = load_spec()
        self.hw = HwParams.from_target(target)
        self.dtype = target.dtype
        # the spec's element types: abuf accumulates wider (int32 / fp32), as the datapath does
        self.dtypes = {b: np.dtype(t) for b, t in self.spec.elem_types(target.dtype).items()}
        self.elem_bytes = dict(target.derived.elem_bytes)
        self.sizes = dict(target.derived.buffer_elems)
        self.buf_names = self.spec.enums["buf"].names    # enum value -> "ibuf" ...
        self.unit_enum = self.spec.enums["unit"].names   # enum value -> "matrix" ...
        self.semaphore_count = target.semaphores         # read per signal/wait: kept plain
        self.reg_enum = self.spec.enums["reg"].names
        self.units = target_units(target)  # the order traces and counters list them
        self.buffers = {b: np.zeros(self.sizes[b], dtype=self.dtypes[b]) for b in BUFFERS}
        self.regs = {u: {r.name: r.reset for r in self.spec.registers.values()
                         if r.unit == UNIT_CLASS[u]} for u in self.units}
        # what an instruction shape costs (npusim.exec handlers), worked out once per run
        self.shapes: dict = {}
        # writes to each unit's registers so far (cfg's commit): what a handler checked against
        # them holds while this is unchanged (the units' timing-only memo, npusim.units.base)
        self.reg_writes = dict.fromkeys(self.units, 0)
        # Used only by execute() on its own; inside simulate() semaphores are SimPy Containers.
        self.semaphores = [0] * target.semaphores
