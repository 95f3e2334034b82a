"""Simulated memories: byte-addressed DRAM and bounds checks shared with the SRAM buffers."""

from __future__ import annotations

import functools

import numpy as np

from npusim.faults import MemoryFault


def check_extent(what: str, addr: int, extent: int, size: int, unit: str = "elements") -> None:
    """Fault unless [addr, addr + extent) lies inside a memory of `size` units."""
    if addr < 0 or extent < 0 or addr + extent > size:
        raise MemoryFault(f"{what} access at {addr} of {extent} {unit} ends at {addr + extent}, "
                          f"past its size of {size} {unit} (last legal address {size - 1})",
                          hint="shrink the tile or move it to a lower address")


@functools.lru_cache(maxsize=None)
def le_dtype(dtype) -> np.dtype:
    """The little-endian form of a dtype: DRAM holds little-endian words, like the ISA
    (cached: asked once per transfer in functional runs, of a handful of dtypes)."""
    return np.dtype(dtype).newbyteorder("<")


class Dram:
    """DRAM as a flat byte array; every read and write is bounds-checked."""

    def __init__(self, size_bytes: int):
        if size_bytes <= 0:
            raise ValueError(f"DRAM size must be positive, got {size_bytes} bytes")
        # np.zeros maps untouched pages lazily, so a 4 GiB npu-server DRAM costs nothing until used.
        self.bytes = np.zeros(int(size_bytes), dtype=np.uint8)

    @property
    def size(self) -> int:
        return self.bytes.size

    def __len__(self) -> int:
        return self.bytes.size

    def write(self, addr: int, array) -> None:
        """Store `array`'s elements, little-endian and C-ordered, at byte address `addr`."""
        array = np.ascontiguousarray(array)
        data = array.astype(le_dtype(array.dtype), copy=False).reshape(-1).view(np.uint8)
        check_extent("DRAM write", addr, data.size, self.size, "bytes")
        self.bytes[addr:addr + data.size] = data

    def read(self, addr: int, shape, dtype) -> np.ndarray:
        """A copy of the elements of `shape` and `dtype` stored at byte address `addr`."""
        dtype = le_dtype(dtype)
        shape = (shape,) if np.isscalar(shape) else tuple(shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        check_extent("DRAM read", addr, nbytes, self.size, "bytes")
        out = self.bytes[addr:addr + nbytes].view(dtype).reshape(shape)
        return out.astype(dtype.newbyteorder("="))

    def check_strided(self, addr: int, planes: int, plane_stride: int, rows: int,
                      row_stride: int, row_bytes: int) -> None:
        """Fault unless a 3-D strided region lies inside DRAM (strides in bytes)."""
        last = addr + (planes - 1) * plane_stride + (rows - 1) * row_stride + row_bytes
        if addr < 0 or last > self.size:
            raise MemoryFault(
                f"DRAM access at {addr} of {planes} plane(s) x {rows} rows x {row_bytes} bytes "
                f"(stride {row_stride}, plane stride {plane_stride}) ends at {last}, past the "
                f"DRAM size of {self.size} bytes",
                hint="check the tensor's address and the stride")

    def strided(self, addr: int, planes: int, plane_stride: int, rows: int, row_stride: int,
                row_bytes: int) -> np.ndarray:
        """A (planes, rows, row_bytes) uint8 view of a 3-D strided region (checked, writable).

        The strides are byte distances, as the DMA's DRAM-side address generator steps them."""
        self.check_strided(addr, planes, plane_stride, rows, row_stride, row_bytes)
        # the view built directly on DRAM's buffer (np.lib.stride_tricks.as_strided's view, at
        # a fraction of its cost: it is made twice per transfer in functional runs)
        return np.ndarray((planes, rows, row_bytes), np.uint8, self.bytes, addr,
                          (plane_stride, row_stride, 1))
