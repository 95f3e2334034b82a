"""Errors of the runtime (Device API) and its DRAM memory pool; all are DeviceError."""

from __future__ import annotations

from isa.errors import NpusimError


class DeviceError(NpusimError, RuntimeError):
    """Base of every error the runtime raises: catch this to catch them all."""


class PoolError(DeviceError):
    """Misuse of the DRAM pool: bad size or alignment, double free, unknown address."""


class OutOfMemoryError(PoolError, MemoryError):
    """No free block can hold the request (the message gives the free-space picture)."""


class DeviceClosedError(DeviceError):
    """The device was used after close()."""


class DeviceBufferError(DeviceError):
    """A buffer from another device, a freed buffer, or a host array that does not fit it."""


class ProgramError(DeviceError):
    """A program that cannot run on this device: wrong target, bad bindings, DRAM conflicts."""


class RunFault(DeviceError):
    """The simulated run stopped on a fault; `.fault` is the npusim SimulationFault."""

    def __init__(self, message: str, fault: BaseException | None = None):
        super().__init__(message)
        self.fault = fault
