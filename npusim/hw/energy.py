"""Energy of a run at 45 nm: dynamic energy per MAC, vector op, SRAM byte (by buffer capacity)
and DRAM byte, plus leakage power proportional to the Target's area over the run's time.

Every constant is a Target attribute (isa/target/kinds.py); defaults and sources are in
docs/energy.md."""

from __future__ import annotations

import math

SRAM_REF_KIB = 8        # the capacity energy-sram-byte-pj is quoted at (Horowitz: 8 KB)
SRAM_EXPONENT = 0.5     # per-access energy grows as sqrt(capacity): bit lines and word lines


def mac_pj(target) -> float:
    """One multiply-accumulate of the Target's datapath: int8 x int8 into int32, or fp16 x fp16
    into fp32."""
    return target.energy_mac_fp16_pj if target.dtype == "fp16" else target.energy_mac_pj


def sram_byte_pj(target, buffer: str) -> float:
    """One byte read or written in `buffer`: energy-sram-byte-pj at 8 KiB, scaled by
    sqrt(capacity / 8 KiB) (Horowitz's 8 KB / 32 KB / 1 MB figures grow about so)."""
    kib = target.derived.buffer_bytes[buffer] / 1024
    return target.energy_sram_byte_pj * (kib / SRAM_REF_KIB) ** SRAM_EXPONENT


def leakage_mw(target) -> float:
    """Static power of the whole Target: its area times leakage-mw-per-mm2, unless static-mw
    (per core) is set above 0, which overrides it."""
    if target.static_mw > 0:
        return target.static_mw * target.num_cores
    from npusim.hw.area import area_mm2
    return area_mm2(target) * target.leakage_mw_per_mm2


def energy_breakdown(target, work: dict, dram_bytes: int, cycles: int) -> dict[str, float]:
    """pJ by component: mac, vector, sram_<buffer> for each buffer, dram, leakage. `work` holds
    the run's "macs", "vector_ops" and "sram" ({buffer: bytes read + written})."""
    parts = {"mac": work["macs"] * mac_pj(target),
             "vector": work["vector_ops"] * target.energy_vector_op_pj}
    for b in target.derived.buffer_bytes:
        parts[f"sram_{b}"] = work["sram"].get(b, 0) * sram_byte_pj(target, b)
    parts["dram"] = dram_bytes * target.energy_dram_byte_pj
    # mW x (cycles / MHz = us) = nJ = 1e3 pJ
    parts["leakage"] = leakage_mw(target) * cycles / target.freq_mhz * 1e3
    return parts


def energy_pj(breakdown: dict) -> dict[str, float]:
    """The by-action summary SimResult.energy_pj has always had: mac, sram (all buffers), dram,
    vector, static (= leakage) and total."""
    sram = math.fsum(v for k, v in breakdown.items() if k.startswith("sram_"))
    out = {"mac": breakdown["mac"], "sram": sram, "dram": breakdown["dram"],
           "vector": breakdown["vector"], "static": breakdown["leakage"]}
    out["total"] = math.fsum(breakdown.values())
    return out
