"""CpuModule: a model compiled to a shared library; runs on real data, verifies against the
compiler's reference and times itself (warm-up, then the median of repeats)."""

from __future__ import annotations

import json
import shutil
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import toolchain


@dataclass
class CpuModule:
    program: object          # clike.Program
    target: object
    library: Path
    command: list
    compile_s: float
    _dll: object = field(default=None, repr=False)
    _consts: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        self._dll = toolchain.load(self.library)
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
        """Wall time of whole-model runs: `warmup` discarded, then the median of `repeats`."""
        arena = self.program.new_arena()
        self.program.write_inputs(arena, dev_in)
        for _ in range(warmup):
            self._call(arena)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            self._call(arena)
            times.append(time.perf_counter() - t0)
        return {"latency_ms": statistics.median(times) * 1e3, "measured": True,
                "repeats": repeats, "warmup": warmup, "min_ms": min(times) * 1e3}

    def evaluate(self, feeds: dict, warmup: int = 2, repeats: int = 7) -> dict:
        """Run on `feeds` (float model inputs), check against the reference, and time it."""
        p = self.prepared
        dev_in = p.device_inputs(feeds)
        checks = p.check(feeds, dev_in, self.run(dev_in))
        return {**self.benchmark(dev_in, warmup, repeats), **checks,
                "dtype": p.dtype, "gmacs": self.program.flops / 2e9}

    def save(self, out_dir) -> Path:
        """Write model.c, libmodel.so, constants.bin and manifest.json into `out_dir`."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "model.c").write_text(self.source)
        shutil.copyfile(self.library, out / "libmodel.so")
        self._consts.tofile(out / "constants.bin")
        (out / "manifest.json").write_text(json.dumps(manifest(self.program, self.target,
                                                               self.command), indent=1))
        return out


def manifest(program, target, command) -> dict:
    """How to call the library: the entry point, arena size, tensors and kernels."""
    p, lay = program.prepared, program.layout
    tensor = lambda t: {"name": t.name, "model_name": t.model_name,  # noqa: E731
                        "offset": lay.tensor(t.name), "shape": list(t.shape), "dtype": t.dtype}
    return {"model": program.name, "target": str(target), "backend": program.renderer.name,
            "dtype": p.dtype, "entry": "void npu_model_run(uint8_t *arena, const uint8_t *consts)",
            "arena_bytes": lay.arena_bytes, "constant_bytes": lay.const_bytes,
            "inputs": [tensor(t) for t in p.inputs], "outputs": [tensor(t) for t in p.outputs],
            "command": command,
            "kernels": [{"name": k.name, "layer": k.layer, "flops": k.flops, "bytes": k.nbytes}
                        for k in program.kernels]}
