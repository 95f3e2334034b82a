"""GpuModule: a model as CUDA source. Compiles to PTX anywhere nvcc exists; where a GPU
exists, builds a library, runs the model, verifies and times it with CUDA events; otherwise
estimates its time with the gpu Target's roofline and says so (measured=False)."""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from isa.files import write_atomic

import numpy as np

from ...errors import BackendError
from .. import roofline
from ..clike.program import manifest
from . import toolchain

CACHE = Path(tempfile.gettempdir()) / "npusim-gpu-cache"
# cudaError_t values a run meets most, for the error line (the full list: CUDA's driver_types.h)
CUDA_ERRORS = {2: "cudaErrorMemoryAllocation", 35: "cudaErrorInsufficientDriver",
               100: "cudaErrorNoDevice", 209: "cudaErrorNoKernelImageForDevice",
               222: "cudaErrorUnsupportedPtxVersion", 700: "cudaErrorIllegalAddress"}


@dataclass
class GpuModule:
    program: object          # clike.Program
    target: object
    nvcc: str | None = None
    workdir: Path = None
    _dll: object = field(default=None, repr=False)

    def __post_init__(self):
        if self.workdir is None:  # one directory per distinct source
            key = hashlib.sha256(self.source.encode()).hexdigest()[:20]
            self.workdir = CACHE / key
        self.workdir.mkdir(parents=True, exist_ok=True)
        if not self.cu.exists() or self.cu.read_text() != self.source:
            tmp = self.workdir / f"model.{os.getpid()}.tmp"  # atomic: test workers share it
            tmp.write_text(self.source)
            tmp.replace(self.cu)

    @property
    def cu(self) -> Path:
        return self.workdir / "model.cu"

    @property
    def prepared(self):
        return self.program.prepared

    @property
    def source(self) -> str:
        return self.program.source

    def ptx(self) -> Path:
        """Compile every kernel with `nvcc -ptx -arch=<target arch>`; -> the .ptx path."""
        return toolchain.compile_ptx(self.cu, self.target.arch, self.nvcc)

    def estimate(self) -> dict:
        return roofline.estimate(self.program.kernels, self.target)

    @staticmethod
    def can_run() -> bool:
        return toolchain.find_nvcc() is not None and toolchain.device_count() > 0

    def _bench(self, dev_in: dict, warmup: int, repeats: int) -> tuple:
        if self._dll is None:
            lib = toolchain.compile_library(self.cu, self.target.arch, self.nvcc)
            try:
                self._dll = toolchain.load(lib)
            except OSError as e:
                raise BackendError(f"cannot load the CUDA library {lib}: {e}; hint: is the "
                                   "CUDA runtime of the nvcc that built it installed?") from None
        arena = self.program.new_arena()
        self.program.write_inputs(arena, dev_in)
        consts = self.program.layout.constants()
        ms = np.zeros(max(repeats, 1), np.float32)
        err = self._dll.npu_gpu_bench(arena.ctypes.data, arena.nbytes, consts.ctypes.data,
                                      consts.nbytes, warmup, repeats, ms.ctypes.data)
        if err:
            name = CUDA_ERRORS.get(err, "see cudaError_t")
            raise BackendError(f"CUDA error {err} ({name}) running {self.program.name} on "
                               f"{self.target.tag or 'a gpu target'} -arch={self.target.arch} "
                               f"({self.cu}); hint: the device's compute capability must be "
                               "at least the target's -arch, and its memory must hold the "
                               "arena")
        return self.program.read_outputs(arena), [float(t) for t in ms[:repeats]]

    def run(self, dev_in: dict) -> dict:
        return self._bench(dev_in, 0, 1)[0]

    def evaluate(self, feeds: dict, warmup: int = 2, repeats: int = 7) -> dict:
        """Measured and verified where a GPU exists, else the roofline estimate."""
        p = self.prepared
        if not self.can_run():
            return {**self.estimate(), "verified": None, "dtype": p.dtype,
                    "note": "estimated: no CUDA device on this host"}
        dev_in = p.device_inputs(feeds)
        outputs, times = self._bench(dev_in, warmup, repeats)
        return {"latency_ms": statistics.median(times), "measured": True, "estimated": False,
                "repeats": repeats, "warmup": warmup, "min_ms": min(times),
                **p.check(feeds, dev_in, outputs), "dtype": p.dtype}

    def save(self, out_dir, ptx: bool = False) -> Path:
        """model.cu, constants.bin, manifest.json in `out_dir`; with ptx=True also the PTX of
        every kernel (model.<arch>.ptx, needs nvcc)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        write_atomic(out / "model.cu", self.source)
        if ptx:
            built = self.ptx()
            write_atomic(out / built.name, built.read_bytes())
        write_atomic(out / "constants.bin", self.program.layout.constants().tobytes())
        info = manifest(self.program, self.target, None)
        info["entry"] = ("int npu_gpu_bench(uint8_t *host_arena, size_t arena_bytes, const "
                         "uint8_t *host_consts, size_t const_bytes, int warmup, int repeats, "
                         "float *ms)")
        info["launches"] = {k: {"grid": list(v.grid), "threads": v.threads}
                            for k, v in self.program.renderer.launches.items()}
        write_atomic(out / "manifest.json", json.dumps(info, indent=1))
        return out


