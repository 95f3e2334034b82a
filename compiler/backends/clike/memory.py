"""Host memory of a C-like program: one activation arena (tensor lifetimes over the lowered
layers, placed by the front half's allocator so dead tensors' bytes are reused) and one
constants blob (weights and epilogue tables, packed in the order the kernels need them)."""

from __future__ import annotations

import numpy as np

from ...passes.memory_plan import Buffer, allocate

ALIGN = 64  # every tensor and constant starts on a cache line (and a CUDA char4/float4 bound)


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


class Layout:
    """Byte offsets of every activation (arena) and every constant (consts blob)."""

    def __init__(self, lowered):
        self.lowered = lowered
        self.offsets: dict = {}
        self.arena_bytes = self._place(lowered)
        self.blobs: list = []
        self.const_offsets: dict = {}
        self.const_bytes = 0

    def _place(self, lowered) -> int:
        # graph inputs and outputs live throughout, so a program can run again on the same
        # arena (warm-up and timing repeats) and give the same outputs
        buffers = [Buffer(r, lowered.tensors[r].nbytes, a, b)
                   for r, (a, b) in lowered.lifetimes(hold_inputs=True).items()]
        placed, arena = allocate(buffers, ALIGN)
        self.offsets = {b.name: b.offset for b in placed}
        return arena

    def tensor(self, name: str) -> int:
        return self.offsets[self.lowered.root(name)]

    def const(self, key: str, array: np.ndarray) -> int:
        """Append a constant once per key (little-endian, C order); returns its offset."""
        if key in self.const_offsets:
            return self.const_offsets[key]
        data = np.ascontiguousarray(array)
        raw = data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes()
        off = self.const_bytes
        self.blobs.append((off, raw))
        self.const_offsets[key] = off
        self.const_bytes = _align(off + len(raw))
        return off

    def constants(self) -> np.ndarray:
        out = np.zeros(max(self.const_bytes, ALIGN), np.uint8)
        for off, raw in self.blobs:
            out[off:off + len(raw)] = np.frombuffer(raw, np.uint8)
        return out
