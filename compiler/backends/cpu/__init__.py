"""The cpu backend: C from the shared lowering, built by the system C compiler and run for
real through ctypes (tags: cpu-host)."""

from __future__ import annotations

from .. import Backend, register_backend


@register_backend("cpu")
class CpuBackend(Backend):
    """Options: dtype ('int8': the NPU's integer graph, bit-exact; 'float32'), cc (the C
    compiler), out_dir (also write sources and library there), calib_inputs, num_calib, seed,
    progress (callable(stage, done, total)), plus model keyword arguments (resolution=...)."""

    def build(self, model, target, *, dtype: str = "int8", cc=None, out_dir=None,
              calib_inputs=None, num_calib: int = 8, seed: int = 0, progress=None,
              **model_kwargs):
        from isa.target import Target

        from ...errors import CompilerError
        from ..clike import emit, prepare
        from . import toolchain
        from .module import CpuModule
        from .renderer import CRenderer
        target = Target.create(target)
        if target.kind != "cpu":
            raise CompilerError(f"the cpu backend compiles for cpu targets, got {target.kind}")
        step = progress or (lambda stage, done, total: None)
        renderer = CRenderer(target)
        step("prepare", 0, 3)
        prepared = prepare(model, target, renderer, dtype, calib_inputs, num_calib, seed,
                           **model_kwargs)
        step("emit C", 1, 3)
        program = emit(prepared, renderer)
        step("cc", 2, 3)
        lib, seconds, cmd = toolchain.build_library(program.source, target, cc)
        module = CpuModule(program, target, lib, cmd, seconds)
        if out_dir is not None:
            module.save(out_dir)
        step("done", 3, 3)
        return module
