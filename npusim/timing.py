"""The cycle rules: how many cycles each instruction occupies its unit, uncontended.

These formulas are the contract between the SimPy model and the RTL; the ISA spec names
them in each instruction's `timing` key, docs/timing.md documents them, and the cocotb
testbenches check the Verilog against them cycle for cycle. Symbols:
R, C array rows/cols; L vector lanes; P vector pipeline depth; S DMA setup;
Lat DRAM latency; BW DRAM bytes per cycle; F zero-fill elements per cycle of a DMA load.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from isa.checks import window_out_hw

REQUANT_EXTRA_STAGES = 2  # the 32x32 multiplier and the rounding adder of vrequant


@dataclass(frozen=True)
class HwParams:
    """The Target values the cycle rules read (see HwParams.from_target)."""

    array_rows: int
    array_cols: int
    vector_lanes: int
    vector_pipeline: int
    dma_setup: int
    dram_latency: int
    dram_bw: int
    dma_fill_lanes: int

    @classmethod
    def from_target(cls, target) -> "HwParams":
        return cls(array_rows=target.array_rows, array_cols=target.array_cols,
                   vector_lanes=target.vector_lanes, vector_pipeline=target.vector_pipeline,
                   dma_setup=target.dma_setup, dram_latency=target.dram_latency,
                   dram_bw=target.dram_bw, dma_fill_lanes=target.dma_fill_lanes)


def dispatch() -> int:
    """Fetch/decode/dispatch of any instruction; nop and halt take only this."""
    return 1


def cfg() -> int:
    """A config-register write in its unit."""
    return 1


def sync() -> int:
    """signal, or wait once its semaphore is positive."""
    return 1


def barrier() -> int:
    """barrier/gbarrier once every unit (and core) has arrived."""
    return 1


def dma(hw: HwParams, dram_bytes: int, fill_elems: int = 0) -> int:
    """max(S + Lat + ceil(bytes / BW), ceil(fill / F)): setup, first-beat latency and the data
    beats, or the zero fill of a padded load if that is longer.

    A padded load's SRAM side walks the whole padded tile (`fill_elems`, see dma_fill_elems)
    F elements per cycle from the instruction's first cycle, beside the beats; the load ends
    when both are done. Under contention the beats wait for the shared DRAM port (see
    npusim.dram) while the fill does not: npusim.units.dma applies the fill bound on top."""
    return max(hw.dma_setup + hw.dram_latency + dma_beats(hw, dram_bytes),
               dma_fill(hw, fill_elems))


def dma_beats(hw: HwParams, dram_bytes: int) -> int:
    return ceil(dram_bytes / hw.dram_bw)


def dma_fill(hw: HwParams, fill_elems: int) -> int:
    """ceil(fill / F): cycles of the zero-fill walker (0 when the load has no padding)."""
    return ceil(fill_elems / hw.dma_fill_lanes)


def dma_fill_elems(instr, regs: dict) -> int:
    """SRAM elements the zero fill walks: the whole padded tile of a load with any padding,
    planes x (pad_top + rows + pad_bottom) x (pad_left + cols + pad_right); 0 otherwise
    (a store, or a load without padding, writes no zeros)."""
    f = instr.fields
    pads = [f.get(k, 0) for k in ("pad_top", "pad_bottom", "pad_left", "pad_right")]
    if not any(pads):
        return 0
    pt, pb, pl, pr = pads
    return regs.get("dma_planes", 1) * (pt + f["rows"] + pb) * (pl + f["cols"] + pr)


def matrix_gemm(hw: HwParams, m: int, k: int, n: int) -> int:
    """k + m + R + C - 1: k cycles of weight preload, m input rows streamed, R + C - 2
    cycles of skew fill/drain across the array, 1 cycle of accumulator write-back."""
    return k + m + hw.array_rows + hw.array_cols - 1


def conv_passes(hw: HwParams, kh: int, kw: int, cin: int) -> list[int]:
    """Depth k of each weight-stationary pass of a conv tile: kh*kw kernel taps, each
    split into ceil(cin / R) channel blocks."""
    blocks = [min(hw.array_rows, cin - b) for b in range(0, cin, hw.array_rows)]
    return blocks * (kh * kw)


def conv_out_hw(fields: dict, regs: dict) -> tuple[int, int]:
    return window_out_hw("conv", fields, regs)


def matrix_conv(hw: HwParams, fields: dict, regs: dict) -> int:
    """Sum over passes of matrix_gemm(m = oh*ow, k = pass depth, n = cout): the hardware
    im2col streams each tap's shifted window as a GEMM against that tap's weights."""
    oh, ow = conv_out_hw(fields, regs)
    return sum(matrix_gemm(hw, oh * ow, k, fields["cout"])
               for k in conv_passes(hw, regs["conv_kh"], regs["conv_kw"], fields["cin"]))


def vector_elementwise(hw: HwParams, length: int) -> int:
    """P + ceil(len / L): L elements per cycle after the pipeline fills."""
    return hw.vector_pipeline + ceil(length / hw.vector_lanes)


def vector_requant(hw: HwParams, length: int) -> int:
    """P + 2 + ceil(len / L): two extra stages for the multiply and rounding shift."""
    return hw.vector_pipeline + REQUANT_EXTRA_STAGES + ceil(length / hw.vector_lanes)


def pool_out_hw(fields: dict, regs: dict) -> tuple[int, int]:
    return window_out_hw("pool", fields, regs)


def vector_pool(hw: HwParams, fields: dict, regs: dict) -> int:
    """P + oh*ow*kh*kw*ceil(c / L): one window element per cycle for L channels at once."""
    oh, ow = pool_out_hw(fields, regs)
    return hw.vector_pipeline + (oh * ow * regs["pool_kh"] * regs["pool_kw"]
                                 * ceil(fields["channels"] / hw.vector_lanes))


def unit_cycles(hw: HwParams, instr, regs: dict) -> int:
    """Uncontended busy cycles of `instr` in its unit, by the spec's timing rule name.

    DMA is the one rule that depends on the transfer size; pass regs with dma_planes."""
    rule = instr.spec.timing
    f = instr.fields
    if rule == "matrix_gemm":
        return matrix_gemm(hw, f["m"], f["k"], f["n"])
    if rule == "matrix_conv":
        return matrix_conv(hw, f, regs)
    if rule == "vector_elementwise":
        return vector_elementwise(hw, f["len"])
    if rule == "vector_requant":
        return vector_requant(hw, f["len"])
    if rule == "vector_pool":
        return vector_pool(hw, f, regs)
    if rule == "dma":
        return dma(hw, dma_bytes(instr, regs, elem_bytes=regs["elem_bytes"]),
                   dma_fill_elems(instr, regs))
    if rule in ("cfg", "sync", "barrier", "dispatch"):
        return RULES[rule]()
    raise KeyError(f"no cycle rule named '{rule}' (instruction {instr.mnemonic})")


def dma_bytes(instr, regs: dict, elem_bytes: int) -> int:
    """DRAM bytes a load/store moves: planes x rows x cols elements (padding excluded)."""
    f = instr.fields
    return regs.get("dma_planes", 1) * f["rows"] * f["cols"] * elem_bytes


RULES = {"dispatch": dispatch, "cfg": cfg, "sync": sync, "barrier": barrier, "dma": dma,
         "matrix_gemm": matrix_gemm, "matrix_conv": matrix_conv,
         "vector_elementwise": vector_elementwise, "vector_requant": vector_requant,
         "vector_pool": vector_pool}
