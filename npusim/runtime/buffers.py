"""Device buffers and the program tensors they bind to: shapes, dtypes and byte sizes."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

import numpy as np

from npusim.runtime.errors import DeviceBufferError, ProgramError
from npusim.runtime.pool import Allocation


def describe(shape, dtype) -> str:
    return f"{np.dtype(dtype).name}[{','.join(map(str, shape))}]"


@dataclass(eq=False)
class DeviceBuffer:
    """A block of device DRAM: `addr`/`nbytes` in bytes; `shape`/`dtype` of its contents.

    A buffer allocated by byte count is raw: uint8[nbytes], and accepts any host array of
    exactly nbytes bytes."""

    addr: int
    nbytes: int
    shape: tuple
    dtype: np.dtype
    name: str | None = None
    raw: bool = False
    device: object = field(default=None, repr=False)
    block: Allocation | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        return f"buffer '{self.name}'" if self.name else f"buffer at 0x{self.addr:x}"

    @property
    def freed(self) -> bool:
        return self.device.closed or self.block not in self.device.pool

    def describe(self) -> str:
        return f"{self.nbytes} raw bytes" if self.raw else describe(self.shape, self.dtype)


def parse_alloc_spec(spec, dtype) -> tuple:
    """`nbytes`, `shape, dtype=...` or `(shape, dtype)` -> (shape, dtype, raw)."""
    if isinstance(spec, tuple) and len(spec) == 2 and dtype is None and _is_dtype(spec[1]) \
            and not isinstance(spec[1], int):
        spec, dtype = spec
    if dtype is None:
        if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
            return (int(spec),), np.dtype(np.uint8), True
        raise DeviceBufferError(f"alloc needs a byte count or (shape, dtype); got {spec!r} "
                                "without a dtype, e.g. dev.alloc(((4, 4), 'int8'))")
    shape = (spec,) if isinstance(spec, (int, np.integer)) else tuple(spec)
    if not all(isinstance(d, (int, np.integer)) and d > 0 for d in shape) or not shape:
        raise DeviceBufferError(f"buffer shape must be positive integers; got {spec!r}")
    return tuple(int(d) for d in shape), np.dtype(dtype), False


def _is_dtype(x) -> bool:
    try:
        np.dtype(x)
    except TypeError:
        return False
    return True


def nbytes_of(shape, dtype) -> int:
    return prod(shape) * np.dtype(dtype).itemsize


def host_array_for(buf: DeviceBuffer, array) -> np.ndarray:
    """Check a host array fits `buf` exactly and return it as the buffer's dtype/shape."""
    arr = np.asarray(array)
    if buf.raw:
        if arr.nbytes != buf.nbytes:
            raise DeviceBufferError(
                f"copy size mismatch: {buf.label} holds {buf.nbytes} B, the host array "
                f"{describe(arr.shape, arr.dtype)} has {arr.nbytes} B")
        return np.ascontiguousarray(arr).view(np.uint8).reshape(buf.shape)
    if arr.shape != buf.shape or arr.dtype != buf.dtype:
        hint = (f"; cast with .astype('{buf.dtype.name}')" if arr.shape == buf.shape
                else f"; reshape to {buf.shape}" if arr.size == prod(buf.shape) else "")
        raise DeviceBufferError(
            f"copy size mismatch: {buf.label} is {buf.describe()}, the host array is "
            f"{describe(arr.shape, arr.dtype)}{hint}")
    return arr


@dataclass(frozen=True)
class TensorSlot:
    """A tensor a program declares at a fixed DRAM address (`.tensor` in assembly)."""

    name: str
    dram: int
    shape: tuple
    dtype: np.dtype

    @property
    def nbytes(self) -> int:
        return nbytes_of(self.shape, self.dtype)

    @property
    def end(self) -> int:
        return self.dram + self.nbytes

    def check_binding(self, buf: DeviceBuffer) -> None:
        ok = buf.nbytes == self.nbytes if buf.raw else (
            buf.shape == self.shape and buf.dtype == self.dtype)
        if not ok:
            raise ProgramError(f"{buf.label} ({buf.describe()}) cannot bind tensor "
                               f"'{self.name}' ({describe(self.shape, self.dtype)}, "
                               f"{self.nbytes} B)")
