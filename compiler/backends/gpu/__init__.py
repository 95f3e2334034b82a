"""The gpu backend: CUDA C from the shared lowering; compiled with nvcc, run where a GPU
exists, otherwise timed by the Target's roofline and labelled estimated (tags: gpu-a100,
gpu-t4, gpu-h100)."""

from __future__ import annotations

from .. import Backend, register_backend


@register_backend("gpu")
class GpuBackend(Backend):
    """Options: dtype ('int8' | 'float32'), nvcc, out_dir, calib_inputs, num_calib, seed,
    progress, plus model keyword arguments (resolution=...)."""

    def build(self, model, target, *, dtype: str = "int8", nvcc=None, out_dir=None,
              calib_inputs=None, num_calib: int = 8, seed: int = 0, progress=None,
              **model_kwargs):
        from isa.target import Target

        from ...errors import CompilerError
        from ..clike import emit, prepare
        from . import toolchain
        from .module import GpuModule
        from .renderer import CudaRenderer
        target = Target.create(target)
        if target.kind != "gpu":
            raise CompilerError(f"the gpu backend compiles for gpu targets, got {target.kind}")
        step = progress or (lambda stage, done, total: None)
        renderer = CudaRenderer(target)
        step("prepare", 0, 2)
        prepared = prepare(model, target, renderer, dtype, calib_inputs, num_calib, seed,
                           **model_kwargs)
        step("emit CUDA", 1, 2)
        module = GpuModule(emit(prepared, renderer), target, nvcc)
        if out_dir is not None:  # the PTX too where nvcc exists: proof every kernel compiles
            module.save(out_dir, ptx=toolchain.find_nvcc(nvcc) is not None)
        step("done", 2, 2)
        return module
