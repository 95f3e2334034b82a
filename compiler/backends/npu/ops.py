"""One NPU instruction as the code generator sees it: assembly text, unit, estimated cycles,
the SRAM/DRAM ranges it reads and writes (for hazard tracking) and the config registers it
needs set on its unit."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Op:
    unit: str                    # matrix | vector | dma0..dma7
    text: str                    # "conv ibuf[0x0], ..." without comment
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


def operands(pairs) -> str:
    return ", ".join(f"{k}={v}" for k, v in pairs)


def buf(name: str, addr: int) -> str:
    return f"{name}[{addr:#x}]"
