"""The gpu Target kind (a roofline-level description of a CUDA GPU) and its tags gpu-t4,
gpu-a100, gpu-h100, registered with isa.target by the gpu backend (entry point
npusim.target_kinds: gpu)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from isa.target import Attr, register_tag, register_target_kind


@dataclass(frozen=True)
class GpuDerived:
    peak_flops: float
    peak_flops_fp16: float
    mem_bytes_per_s: float
    launch_s: float


GPU_ATTRS = (
    Attr("peak-tflops", float, 19.5, 0.001, 1e5, doc="peak fp32 throughput", unit="TFLOP/s"),
    Attr("peak-tflops-fp16", float, 312.0, 0.001, 1e5, doc="peak fp16 throughput", unit="TFLOP/s"),
    Attr("mem-bw-gbs", float, 1555.0, 0.001, 1e6, doc="memory bandwidth", unit="GB/s"),
    Attr("sms", int, 108, 1, 4096, doc="streaming multiprocessors", unit="SMs"),
    Attr("launch-us", float, 5.0, 0.0, 1e6, doc="kernel launch overhead", unit="us"),
    Attr("smem-kb", int, 48, 1, 1024, doc="shared memory per block", unit="KiB"),
    Attr("arch", str, "sm_80", doc="CUDA architecture (nvcc -arch)"),
)


def _derive_gpu(a: Mapping[str, Any]) -> GpuDerived:
    return GpuDerived(a["peak_tflops"] * 1e12, a["peak_tflops_fp16"] * 1e12,
                      a["mem_bw_gbs"] * 1e9, a["launch_us"] * 1e-6)


KIND = register_target_kind("gpu", GPU_ATTRS, _derive_gpu,
                            "CUDA GPU (real where present, else roofline)")
register_tag("gpu-t4", "gpu", dict(arch="sm_75", peak_tflops=8.1, peak_tflops_fp16=65.0,
                                   mem_bw_gbs=320.0, sms=40), "NVIDIA T4 (Turing)")
register_tag("gpu-a100", "gpu", dict(arch="sm_80", peak_tflops=19.5, peak_tflops_fp16=312.0,
                                     mem_bw_gbs=1555.0, sms=108), "NVIDIA A100 40GB (Ampere)")
register_tag("gpu-h100", "gpu", dict(arch="sm_90", peak_tflops=67.0, peak_tflops_fp16=989.0,
                                     mem_bw_gbs=3350.0, sms=132), "NVIDIA H100 SXM (Hopper)")
