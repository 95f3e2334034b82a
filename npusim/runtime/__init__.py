"""The runtime (the seed's Device API): device open/close, DRAM pool, copies, run and sync."""

from npusim.runtime.errors import (DeviceBufferError, DeviceClosedError, DeviceError,
                                   OutOfMemoryError, PoolError, ProgramError, RunFault)
from npusim.runtime.pool import Allocation, MemoryPool, PoolStats

__all__ = ["DeviceError", "PoolError", "OutOfMemoryError", "DeviceClosedError",
           "DeviceBufferError", "ProgramError", "RunFault", "MemoryPool", "Allocation",
           "PoolStats"]
