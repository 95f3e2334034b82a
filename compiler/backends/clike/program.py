"""emit(): prepared model -> kernels -> source text, plus the host side every C-like backend
shares: the arena an executable reads and writes, and where each input and output lives."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .layers import KernelBuilder
from .memory import ALIGN, Layout


@dataclass
class Program:
    name: str
    source: str
    kernels: list
    layout: Layout
    prepared: object
    renderer: object

    @property
    def flops(self) -> int:
        return sum(k.flops for k in self.kernels)

    def new_arena(self) -> np.ndarray:
        """Zeroed, cache-line aligned activation memory."""
        raw = np.zeros(self.layout.arena_bytes + 2 * ALIGN, np.uint8)
        start = -raw.ctypes.data % ALIGN
        return raw[start:start + max(self.layout.arena_bytes, ALIGN)]

    def write_inputs(self, arena: np.ndarray, dev_in: dict) -> None:
        for t in self.prepared.inputs:
            data = np.ascontiguousarray(np.asarray(dev_in[t.name]).astype(t.dtype))
            if data.shape != tuple(t.shape):
                raise ValueError(f"input '{t.name}' has shape {data.shape}; the program "
                                 f"expects {tuple(t.shape)}")
            off = self.layout.tensor(t.name)
            arena[off:off + data.nbytes] = data.view(np.uint8).ravel()

    def read_outputs(self, arena: np.ndarray) -> dict:
        out = {}
        for t in self.prepared.outputs:
            off = self.layout.tensor(t.name)
            n = int(np.prod(t.shape)) * np.dtype(t.dtype).itemsize
            out[t.name] = arena[off:off + n].view(t.dtype).reshape(t.shape).copy()
        return out


def emit(prepared, renderer, name: str | None = None) -> Program:
    lowered = prepared.lowered
    layout = Layout(lowered)
    builder = KernelBuilder(lowered, layout, renderer)
    kernels = [k for i, layer in enumerate(lowered.layers) for k in builder.build(i, layer)]
    name = name or lowered.name or "model"
    return Program(name, renderer.render(kernels, name), kernels, layout, prepared, renderer)


def manifest(program, target, command) -> dict:
    """What a saved program needs to be called: arena size, tensors, kernels, how it was built."""
    p, lay = program.prepared, program.layout

    def tensor(t) -> dict:
        return {"name": t.name, "model_name": t.model_name, "offset": lay.tensor(t.name),
                "shape": list(t.shape), "dtype": t.dtype}
    return {"model": program.name, "target": str(target), "backend": program.renderer.name,
            "dtype": p.dtype, "arena_bytes": lay.arena_bytes, "constant_bytes": lay.const_bytes,
            "inputs": [tensor(t) for t in p.inputs], "outputs": [tensor(t) for t in p.outputs],
            "command": command,
            "kernels": [{"name": k.name, "layer": k.layer, "flops": k.flops, "bytes": k.nbytes}
                        for k in program.kernels]}
