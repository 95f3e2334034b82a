"""The runtime (the seed's Device API): device open/close, DRAM pool, copies, run and sync."""

from npusim.runtime.buffers import DeviceBuffer, TensorSlot
from npusim.runtime.compat import check_compatible
from npusim.runtime.device import Device, RunHandle
from npusim.runtime.errors import (DeviceBufferError, DeviceClosedError, DeviceError,
                                   OutOfMemoryError, PoolError, ProgramError, RunFault)
from npusim.runtime.loader import LoadedProgram
from npusim.runtime.pool import Allocation, MemoryPool, PoolStats

__all__ = ["Device", "DeviceBuffer", "RunHandle", "LoadedProgram", "TensorSlot",
           "check_compatible", "DeviceError", "PoolError", "OutOfMemoryError",
           "DeviceClosedError", "DeviceBufferError", "ProgramError", "RunFault", "MemoryPool",
           "Allocation", "PoolStats"]
