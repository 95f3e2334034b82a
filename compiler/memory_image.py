"""A compiled model's memory image, shared by the NPU and C-like backends: the activation
arena as the memory plan placed it, and the constants packed (little-endian, C order, each on
an ALIGN boundary) after it (NPU: one DRAM address space) or in a blob of their own (C-like)."""

from __future__ import annotations

import numpy as np

from .errors import CompilerError

ALIGN = 64  # every tensor and constant starts on a cache line (and a CUDA char4/float4 bound)


def align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


class MemoryImage:
    """Byte addresses of every activation (arena offset) and constant blob.

    capacity: bytes the device has (None: no limit); consts_after_arena: the constants start
    at the first aligned byte past the arena (one address space) rather than at 0."""

    def __init__(self, capacity: int | None = None, consts_after_arena: bool = False):
        self.capacity = capacity
        self.consts_after_arena = consts_after_arena
        self.plan = None
        self.lowered = None
        self.tensors: dict = {}        # root tensor name -> arena offset
        self.arena_bytes = 0
        self.blobs: list = []          # (addr, bytes)
        self.consts: dict = {}         # name -> (addr, nbytes)
        self.const_base = self.const_top = 0

    # ---------------------------------------------------------------- activations
    def place(self, lowered, plan) -> None:
        """Take the arena from `plan` (a MemoryPlan over `lowered`'s layers)."""
        self.lowered, self.plan = lowered, plan
        self.tensors = {name: buf.offset for name, buf in plan.activations.items()
                        if name not in plan.aliases}
        self.arena_bytes = plan.arena_bytes
        if self.consts_after_arena:
            self.const_base = self.const_top = align(self.arena_bytes)
        if self.capacity is not None and self.arena_bytes > self.capacity:
            raise CompilerError(f"the model's activations need {self.arena_bytes:,} bytes of "
                                f"DRAM, more than the Target's {self.capacity:,}; use a Target "
                                "with larger dram-mb")

    def addr(self, lowered, name: str) -> int:
        return self.tensors[lowered.root(name)]

    def tensor(self, name: str) -> int:
        return self.tensors[self.lowered.root(name)]

    # ---------------------------------------------------------------- constants
    def const(self, name: str, array: np.ndarray) -> int:
        """Append a constant once per name; returns its address."""
        if name in self.consts:
            return self.consts[name][0]
        data = np.ascontiguousarray(array)
        raw = data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes()
        addr = self.const_top
        self.blobs.append((addr, raw))
        self.consts[name] = (addr, len(raw))
        self.const_top = align(addr + len(raw))
        if self.capacity is not None and self.const_top > self.capacity:
            used = self.const_top - self.const_base
            raise CompilerError(f"the model needs more than {self.capacity:,} bytes of DRAM "
                                f"({self.arena_bytes:,} of activations, {used:,}+ of "
                                "constants); use a Target with larger dram-mb")
        return addr

    @property
    def const_bytes(self) -> int:
        return self.const_top - self.const_base

    def image(self) -> bytes:
        """The constants region, to be copied to address `const_base`: the blobs (appended
        at rising addresses by const()) with the alignment zeros between them, joined in one
        copy (a ResNet's constants are megabytes)."""
        parts, at = [], self.const_base
        for addr, raw in self.blobs:
            parts += [bytes(addr - at), raw]
            at = addr + len(raw)
        parts.append(bytes(self.const_top - at))
        return b"".join(parts)

    def constants(self) -> np.ndarray:
        """The constants as a uint8 array of at least ALIGN bytes (a blob of its own)."""
        out = np.zeros(max(self.const_bytes, ALIGN), np.uint8)
        out[:self.const_bytes] = np.frombuffer(self.image(), np.uint8)
        return out
