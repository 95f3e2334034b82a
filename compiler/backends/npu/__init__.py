"""The NPU backend: quantize (int8 Targets) or keep float (fp16), lower, generate assembly,
assemble it through the ISA package and package the artifact."""

from __future__ import annotations

from dataclasses import dataclass

from .. import Backend, register_backend


@dataclass
class CompiledModel:
    """The artifact plus what produced it: the module (quantized) or float graph, and the
    lowered layers. The reference executors hang off `module`."""

    artifact: object
    module: object          # compiler.module.QuantizedModule, or None (fp16)
    graph: object           # the graph the NPU runs (quantized int8 or float NHWC)
    float_graph: object     # the float model, for the float reference
    lowered: object
    # which neighbouring Target's Hw made the program, where build_npu(evaluate=) kept one
    # over the target's own (None: its own)
    chosen_from: str | None = None

    @property
    def quantized(self) -> bool:
        return self.module is not None

    @property
    def host_tables(self) -> dict:
        """{table: array} the host's embedding lookups read (int8, or fp16 on fp16 Targets)."""
        return self.module.host_tables if self.module is not None else \
            self.graph.meta.get("host_tables", {})


@register_backend("npu")
class NpuBackend(Backend):
    """Options: calib_inputs, num_calib, seed (quantization), sync ('auto', 'tokens',
    'barrier'), rewrites (dict of compiler.lower.lower flags: npu_rewrites, subsample, s2d,
    swap, fold, rowdw, im2col, fuse, dwgroup), progress (callable(stage, done, total)), plus model keyword
    arguments (e.g. resolution=32)."""

    def build(self, model, target, *, calib_inputs=None, num_calib: int = 8, seed: int = 0,
              sync: str = "auto", rewrites: dict | None = None, progress=None,
              **model_kwargs):
        from .build import build_npu
        return build_npu(model, target, calib_inputs=calib_inputs, num_calib=num_calib,
                         seed=seed, sync=sync, rewrites=rewrites or {}, progress=progress,
                         **model_kwargs)
