"""Backdoor access to the simulated memories (SRAM buffers, DRAM) through VPI, in numpy arrays."""

from __future__ import annotations

import numpy as np

from isa.spec import load_spec

BUFFER_INSTANCES = {b: f"u_{b}" for b in load_spec().buffer_names}  # rtl/npu_buffers.v names them so


class MemoryBackdoor:
    """Reads and writes a `reg [EW-1:0] mem [..]` array element by element."""

    def __init__(self, mem_handle, bits: int, signed: bool = True):
        self.mem = mem_handle
        self.mask = (1 << bits) - 1
        self.signed = signed

    def write(self, addr: int, values) -> None:
        for i, v in enumerate(np.asarray(values).reshape(-1).tolist()):
            self.mem[addr + i].value = int(v) & self.mask

    def read(self, addr: int, count: int) -> np.ndarray:
        out = np.empty(count, dtype=np.int64)
        for i in range(count):
            value = self.mem[addr + i].value
            out[i] = value.to_signed() if self.signed else value.to_unsigned()
        return out


class BuffersBackdoor:
    """The four buffers of an npu_buffers instance, by name."""

    def __init__(self, bufs_handle):
        self.mems = {name: MemoryBackdoor(getattr(bufs_handle, inst).mem, 32 if name == "abuf" else 8)
                     for name, inst in BUFFER_INSTANCES.items()}

    def write(self, buf: str, addr: int, values) -> None:
        self.mems[buf].write(addr, values)

    def read(self, buf: str, addr: int, count: int) -> np.ndarray:
        return self.mems[buf].read(addr, count)
