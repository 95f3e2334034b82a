"""The DRAM image of a compiled model: the activation arena at the bottom (tensor lifetimes
over the lowered layers, placed by the front half's allocator so dead tensors' bytes are
reused), then the packed constants."""

from __future__ import annotations

import numpy as np

from ...errors import CompilerError
from ...passes.memory_plan import Buffer, allocate

ALIGN = 64
NP_DTYPE = {"int8": np.int8, "int32": np.int32, "float16": np.float16, "float32": np.float32}


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


class DramMap:
    """Byte addresses of every constant blob and every activation tensor."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.blobs: list = []          # (addr, bytes)
        self.const_base = 0
        self.const_top = 0
        self.consts: dict = {}         # name -> (addr, nbytes)
        self.tensors: dict = {}        # root tensor name -> addr
        self.arena_bytes = 0

    def const(self, name: str, array: np.ndarray) -> int:
        """Append a constant (little-endian, C order) once per name; returns its address."""
        if name in self.consts:
            return self.consts[name][0]
        data = np.ascontiguousarray(array)
        raw = data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes()
        addr = self.const_top
        self.blobs.append((addr, raw))
        self.consts[name] = (addr, len(raw))
        self.const_top = _align(addr + len(raw))
        if self.const_top > self.capacity:
            used = self.const_top - self.const_base
            raise CompilerError(f"the model needs more than {self.capacity:,} bytes of DRAM "
                                f"({self.arena_bytes:,} of activations, {used:,}+ of "
                                "constants); use a Target with larger dram-mb")
        return addr

    def image(self) -> bytes:
        """The constants region, to be copied to DRAM address `const_base`."""
        out = bytearray(self.const_top - self.const_base)
        for addr, raw in self.blobs:
            out[addr - self.const_base:addr - self.const_base + len(raw)] = raw
        return bytes(out)

    def place_activations(self, lowered) -> None:
        """Lifetimes by layer index; graph inputs live from the start, outputs to the end."""
        buffers = [Buffer(r, lowered.tensors[r].nbytes, a, b)
                   for r, (a, b) in lowered.lifetimes().items()]
        placed, arena = allocate(buffers, ALIGN)
        self.arena_bytes = arena
        for b in placed:
            self.tensors[b.name] = b.offset
        self.const_base = self.const_top = _align(arena)
        if arena > self.capacity:
            raise CompilerError(f"the model's activations need {arena:,} bytes of DRAM, more "
                                f"than the Target's {self.capacity:,}; use a Target with larger "
                                "dram-mb")

    def addr(self, lowered, name: str) -> int:
        return self.tensors[lowered.root(name)]
