"""One NPU instruction as the code generator sees it: the isa Instruction, unit, estimated
cycles, the SRAM/DRAM ranges it reads and writes (for hazard tracking) and the config
registers it needs set on its unit."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

NO_REGS = MappingProxyType({})  # the regs of an op that needs none (shared: read only)


@dataclass(slots=True)  # tens of thousands per model: no per-instance __dict__
class Op:
    unit: str                    # matrix | vector | dma0..dma7
    ins: object                  # isa.codec.Instruction
    cycles: int                  # estimated busy cycles (the cost model's cycle rule)
    reads: tuple = ()            # (space, lo, hi): ibuf/wbuf/abuf/obuf elements, dram bytes
    writes: tuple = ()
    regs: dict = field(default_factory=dict)   # config registers of `unit` this op needs
    comment: str = ""
    nbytes: int = 0              # DRAM bytes moved (DMA)
    fill: int = 0                # SRAM elements a padded load zero-fills (the dma rule's fill)
    layer: int = 0
    id: int = -1
    deps: list = field(default_factory=list)  # ids of earlier ops it must follow
    macs: int = 0

