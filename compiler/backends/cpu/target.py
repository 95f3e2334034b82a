"""The cpu Target kind (a roofline-level description of the host) and its tag cpu-host,
registered with isa.target by the cpu backend (entry point npusim.target_kinds: cpu)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from isa.target import Attr, register_tag, register_target_kind


@dataclass(frozen=True)
class CpuDerived:
    peak_flops: float
    mem_bytes_per_s: float
    cycle_ns: float


CPU_ATTRS = (
    # A fixed default (not os.cpu_count()) keeps tags and their strings deterministic.
    Attr("cores", int, 2, 1, 256, doc="cores used", unit="cores"),
    Attr("vector-bits", int, 256, choices=(128, 256, 512), doc="SIMD width", unit="bits"),
    Attr("freq-mhz", int, 3000, 1, 10000, doc="clock frequency", unit="MHz"),
    Attr("peak-gflops", float, 100.0, 0.001, 1e6, doc="peak fp32 throughput", unit="GFLOP/s"),
    Attr("mem-bw-gbs", float, 20.0, 0.001, 1e5, doc="memory bandwidth", unit="GB/s"),
    Attr("l2-kb", int, 1024, 1, 1 << 20, doc="L2 cache size", unit="KiB"),
    Attr("openmp", bool, False, doc="parallelize generated C with OpenMP"),
    Attr("march", str, "native", doc="C compiler -march value"),
)


def _derive_cpu(a: Mapping[str, Any]) -> CpuDerived:
    return CpuDerived(a["peak_gflops"] * 1e9, a["mem_bw_gbs"] * 1e9, 1000.0 / a["freq_mhz"])


KIND = register_target_kind("cpu", CPU_ATTRS, _derive_cpu, "host CPU via generated C")
register_tag("cpu-host", "cpu", dict(march="native"),
             "the host CPU, C compiled with -march=native")
