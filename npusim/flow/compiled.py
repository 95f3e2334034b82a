"""Compiled: what compile() returns, a model built for one Target (an npu artifact with the
references that produced it, a cpu/gpu module, or an artifact loaded from disk)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Compiled:
    """A model compiled for `target`.

    `built` is the backend's own result: compiler.backends.npu.CompiledModel (npu targets),
    CpuModule or GpuModule (cpu/gpu targets), or None for an artifact loaded from a directory
    (`source`), which has no model to verify against. `artifact` is what the simulator runs
    (npu targets only)."""

    name: str                   # the model as named: zoo name, path, graph name, "<model> (<dir>)"
    target: Any                 # isa.target.Target
    built: Any = None
    artifact: Any = None        # compiler.artifact.Artifact; None for cpu/gpu builds
    compile_s: float = 0.0      # wall seconds compile() took (0.0 for a loaded artifact)
    source: str | None = None   # the artifact directory it was loaded from

    @property
    def kind(self) -> str:
        """The Target kind: 'npu', 'cpu' or 'gpu'."""
        return self.target.kind

    @property
    def has_model(self) -> bool:
        """Whether the model itself is at hand (an npu build, not a bare artifact): random float
        inputs, the host's quantization and the references of verify() need it."""
        return self.artifact is not None and self.built is not None

    @property
    def module(self):
        """The int8 compiler.module.QuantizedModule (its integer reference and host steps), or
        None (fp16 targets, cpu/gpu builds, loaded artifacts)."""
        return getattr(self.built, "module", None) if self.has_model else None

    @property
    def float_graph(self):
        """The float model (the float reference's graph); None without the model."""
        return self.built.float_graph if self.has_model else None

    @property
    def quantized(self) -> bool:
        return self.module is not None

    def save(self, directory) -> Path:
        """Write the build to `directory`: the artifact (program.bin, program.s, constants.bin,
        manifest.json) for npu targets, model.c + libmodel.so for cpu, model.cu (+ PTX where
        nvcc exists) for gpu; -> the directory."""
        if self.artifact is not None:
            return Path(self.artifact.save(directory))
        if self.kind == "gpu":
            from compiler.backends.gpu import toolchain
            return self.built.save(directory, ptx=toolchain.find_nvcc(self.built.nvcc) is not None)
        return self.built.save(directory)
