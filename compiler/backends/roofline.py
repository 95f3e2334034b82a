"""The GPU time estimate where no GPU runs the code: a roofline per emitted kernel, from the
gpu Target's peak throughput, memory bandwidth and launch overhead. Always labelled
"estimated" (measured=False): it is a lower bound of what the kernels could reach.

Per kernel: max(flops / peak, bytes / bandwidth) + launch, where flops count 2 per MAC and
bytes are the kernel's compulsory traffic (each input, weight and output once). The int8
kernels multiply-accumulate in int32 on the CUDA cores (no dp4a or tensor cores), which run
int32 multiply-adds at the fp32 FMA rate on the tagged GPUs, so both paths use peak_tflops."""

from __future__ import annotations


def kernel_estimate(kernel, target) -> dict:
    compute_s = kernel.flops / target.derived.peak_flops
    memory_s = kernel.nbytes / target.derived.mem_bytes_per_s
    launch_s = target.derived.launch_s
    return {"name": kernel.name, "layer": kernel.layer, "flops": kernel.flops,
            "bytes": kernel.nbytes, "compute_us": compute_s * 1e6, "memory_us": memory_s * 1e6,
            "launch_us": launch_s * 1e6, "time_us": (max(compute_s, memory_s) + launch_s) * 1e6,
            "bound": "compute" if compute_s >= memory_s else "memory"}


def estimate(kernels: list, target) -> dict:
    """Whole-model estimate: kernels run back to back on one stream."""
    rows = [kernel_estimate(k, target) for k in kernels]
    total_us = sum(r["time_us"] for r in rows)
    return {"latency_ms": total_us / 1e3, "measured": False, "estimated": True,
            "method": "roofline: sum over kernels of max(flops/peak, bytes/bandwidth) + launch",
            "launch_ms": sum(r["launch_us"] for r in rows) / 1e3, "kernels": rows}
