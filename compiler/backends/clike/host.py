"""HostModule: a C-like program built into a shared library that exports npu_model_run, run
on the host through ctypes: real data in, outputs checked against the compiler's reference,
timed (warm-up, then the median of repeats). The cpu backend's module, and the GPU emulator's."""

from __future__ import annotations

import ctypes
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class HostModule:
    program: object          # clike.Program
    target: object
    library: Path
    command: list
    compile_s: float
    _dll: object = field(default=None, repr=False)
    _consts: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        self._dll = ctypes.CDLL(str(self.library))
        self._dll.npu_model_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self._dll.npu_model_run.restype = None
        self._consts = self.program.layout.constants()

    @property
    def prepared(self):
        return self.program.prepared

    @property
    def source(self) -> str:
        return self.program.source

    def _call(self, arena: np.ndarray) -> None:
        self._dll.npu_model_run(arena.ctypes.data, self._consts.ctypes.data)

    def run(self, dev_in: dict) -> dict:
        """Device inputs (int8 quantized or float32, by lowered name) -> device outputs."""
        arena = self.program.new_arena()
        self.program.write_inputs(arena, dev_in)
        self._call(arena)
        return self.program.read_outputs(arena)

    def benchmark(self, dev_in: dict, warmup: int = 2, repeats: int = 7) -> dict:
        """Wall time of whole-model runs: `warmup` discarded, then the median of `repeats`.
        Single-threaded code also gets the median CPU time of the calling thread (cpu_ms):
        on a busy host the wall time includes waiting for a core, the CPU time does not."""
        arena = self.program.new_arena()
        self.program.write_inputs(arena, dev_in)
        for _ in range(warmup):
            self._call(arena)
        times, cpu = [], []
        for _ in range(repeats):
            c0, t0 = time.thread_time(), time.perf_counter()
            self._call(arena)
            times.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
        threaded = bool(getattr(self.target, "openmp", False))
        return {"latency_ms": statistics.median(times) * 1e3, "measured": True,
                "repeats": repeats, "warmup": warmup, "min_ms": min(times) * 1e3,
                "cpu_ms": None if threaded else statistics.median(cpu) * 1e3}

    def evaluate(self, feeds: dict, warmup: int = 2, repeats: int = 7) -> dict:
        """Run on `feeds` (float model inputs), check against the reference, and time it."""
        p = self.prepared
        dev_in = p.device_inputs(feeds)
        checks = p.check(feeds, dev_in, self.run(dev_in))
        return {**self.benchmark(dev_in, warmup, repeats), **checks,
                "dtype": p.dtype, "gmacs": self.program.flops / 2e9}
