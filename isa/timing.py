"""The cycle rules: how many cycles each instruction occupies its unit, uncontended.

One registry, RULES, keyed by the names of the spec's [timing] table; an instruction's rule is
the one its spec `timing` key names on the array's dataflow (`rule_of`: the spec's
[dataflow] table maps the weight-stationary rules to the output-stationary ones, and its
[weight_buffers] table those of PEs with two weight banks), so the simulator (npusim.exec,
npusim.units) and the compiler's cost model (compiler.lower.cost) both find it through the
spec and call the same function. These formulas are the contract with the RTL: docs/timing.md documents them,
tests/npusim/test_timing_contract.py checks them against the spec's formula text, and the
cocotb testbenches check the Verilog against them cycle for cycle.

A rule is `f(hw, **operands)`: `hw` the HwParams below, the operands named as the spec's
formulas name them (instruction fields, and the derived quantities of isa.operands); it ignores
operands it does not read (`**_`), so any instruction that has its operands may name it. Symbols:
R, C array rows/cols; L vector lanes; P vector pipeline depth; S DMA setup; Lat DRAM latency;
BW DRAM bytes per cycle; F zero-fill elements per cycle of a DMA load.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from dataclasses import dataclass
from math import ceil
from typing import Callable

from isa.errors import SpecError
from isa.operands import cycle_operands

REQUANT_EXTRA_STAGES = 2  # the 32x32 multiplier and the rounding adder of vrequant
REQUANT_BIAS_STAGES = 1   # vrequant bias=1: the saturating per-channel bias adder before them


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
    # zero-fill elements per cycle of a padded load; None on a machine whose DMA writes no
    # padding (the compiler's cpu/gpu stand-ins), where only fill = 0 is legal
    dma_fill_lanes: int | None
    # the array's dataflow (the Target's -dataflow): which rule a matrix instruction's spec
    # entry names (rule_of); the rules themselves never branch on it
    dataflow: str = "ws"
    # columns of the array's depthwise mode (dwconv's channels limit): the array's columns on
    # a weight-stationary array with -depthwise-mode=1, else 0 (no dwconv is legal)
    depthwise_cols: int = 0
    # weight banks per PE (the Target's -weight-buffers): which rule a matrix instruction's
    # spec entry names past the dataflow's (the spec's [weight_buffers] table, rule_of)
    weight_buffers: int = 1

    @classmethod
    def from_target(cls, target) -> "HwParams":
        return cls(array_rows=target.array_rows, array_cols=target.array_cols,
                   vector_lanes=target.vector_lanes, vector_pipeline=target.vector_pipeline,
                   dma_setup=target.dma_setup, dram_latency=target.dram_latency,
                   dram_bw=target.dram_bw, dma_fill_lanes=target.dma_fill_lanes,
                   dataflow=target.dataflow, depthwise_cols=depthwise_cols(target),
                   weight_buffers=getattr(target, "weight_buffers", 1))


def depthwise_cols(target) -> int:
    """The channels a dwconv may have on `target`: its array columns where the array has the
    depthwise mode (-depthwise-mode=1, weight-stationary), else 0."""
    on = getattr(target, "depthwise_mode", 0) and target.dataflow == "ws"
    return target.array_cols if on else 0


RULES: dict[str, Callable[..., int]] = {}


def rule(name: str):
    """Register the decorated function as the cycle rule the spec calls `name`."""
    def register(fn):
        RULES[name] = fn
        return fn
    return register


def rule_name(ins, dataflow: str = "ws", weight_buffers: int = 1) -> str:
    """The name of the rule an instruction's spec entry (InstructionSpec, or an Instruction)
    names on an array of `dataflow` with `weight_buffers` weight banks per PE: its `timing`
    key, or what the spec's [dataflow] table and then its [weight_buffers] table put in its
    place. The one place the array's dataflow and banks choose a cycle rule."""
    return getattr(ins, "spec", ins).timing_for(dataflow, weight_buffers)


def rule_of(ins, dataflow: str = "ws", weight_buffers: int = 1) -> Callable[..., int]:
    """The rule an instruction's spec entry (InstructionSpec, or an Instruction) names on an
    array of `dataflow` with `weight_buffers` banks (rule_name)."""
    name = rule_name(ins, dataflow, weight_buffers)
    try:
        return RULES[name]
    except KeyError:
        ins = getattr(ins, "spec", ins)
        raise SpecError(f"instruction '{ins.mnemonic}': no cycle rule named '{name}'; "
                        f"known: {', '.join(RULES)}") from None


def cycles(hw: HwParams, ins, **operands) -> int:
    """Uncontended cycles of instruction `ins` (InstructionSpec or Instruction) by the rule
    its spec `timing` key names on `hw`'s dataflow, given the operands its formula reads."""
    fn = rule_of(ins, hw.dataflow, hw.weight_buffers)
    try:
        return fn(hw, **operands)
    except TypeError:
        missing = _missing(fn, operands)
        if not missing:
            raise
        ins = getattr(ins, "spec", ins)
        raise SpecError(f"instruction '{ins.mnemonic}': its cycle rule "
                        f"'{rule_name(ins, hw.dataflow, hw.weight_buffers)}' needs "
                        f"operand(s) {', '.join(missing)}, given {', '.join(operands) or 'none'}"
                        "; does the spec's timing key name a rule for this kind of "
                        "instruction?") from None


def _missing(fn, operands) -> list[str]:
    params = list(inspect.signature(fn).parameters.values())[1:]
    return [p.name for p in params if p.default is p.empty
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in operands]


def unit_cycles(hw: HwParams, instr, regs, elem_bytes: int = 1) -> int:
    """Uncontended busy cycles of decoded `instr` in its unit, by its spec's rule, with the
    operands isa.operands.cycle_operands derives from its fields and its unit's `regs`
    (`elem_bytes`: bytes of one element of a DMA's buffer)."""
    return cycles(hw, instr, **cycle_operands(instr, regs, elem_bytes))


@contextmanager
def override(name: str, fn: Callable[..., int]):
    """Replace rule `name` by `fn(hw, **operands)` inside the block, for tests that perturb the
    model on purpose (a checker must then report the RTL's cycles as different); yields the
    rule it replaced."""
    old = RULES[name]
    RULES[name] = fn
    try:
        yield old
    finally:
        RULES[name] = old


# ---- the rules ------------------------------------------------------------------------------

@rule("dispatch")
def dispatch(hw: HwParams, **_) -> int:
    """Fetch/decode/dispatch of any instruction; nop and halt take only this."""
    return 1


@rule("cfg")
def cfg(hw: HwParams, **_) -> int:
    """A config-register write in its unit."""
    return 1


@rule("sync")
def sync(hw: HwParams, **_) -> int:
    """signal, or wait once its semaphore is positive."""
    return 1


@rule("barrier")
def barrier(hw: HwParams, **_) -> int:
    """barrier/gbarrier once every unit (and core) has arrived."""
    return 1


@rule("dma")
def dma(hw: HwParams, bytes: int, fill: int = 0, **_) -> int:  # noqa: A002 (the spec's symbol)
    """max(S + Lat + ceil(bytes / BW), ceil(fill / F)): setup, first-beat latency and the data
    beats, or the zero fill of a padded load if that is longer.

    A padded load's SRAM side walks the whole padded tile (`fill`, see isa.operands.dma_elems)
    F elements per cycle from the instruction's first cycle, beside the beats; the load ends
    when both are done. Under contention the beats wait for the shared DRAM port (see
    npusim.dram) while the fill does not: npusim.units.dma applies the fill bound on top."""
    return max(hw.dma_setup + hw.dram_latency + dma_beats(hw, bytes), dma_fill(hw, fill))


def dma_beats(hw: HwParams, dram_bytes: int) -> int:
    """ceil(bytes / BW): cycles the transfer holds the DRAM port."""
    return ceil(dram_bytes / hw.dram_bw)


def dma_fill(hw: HwParams, fill_elems: int) -> int:
    """ceil(fill / F): cycles of the zero-fill walker (0 when the load has no padding)."""
    if not fill_elems:
        return 0
    if hw.dma_fill_lanes is None:
        raise ValueError(f"a DMA zero fill of {fill_elems} elements on a machine without a fill "
                         "walker (dma_fill_lanes=None: a cpu/gpu stand-in); only npu Targets pad")
    return ceil(fill_elems / hw.dma_fill_lanes)


@rule("matrix_gemm")
def matrix_gemm(hw: HwParams, m: int, k: int, n: int, **_) -> int:
    """k + m + R + C - 1: k cycles of weight preload, m input rows streamed, R + C - 2
    cycles of skew fill/drain across the array, 1 cycle of accumulator write-back."""
    return k + m + hw.array_rows + hw.array_cols - 1


def conv_passes(hw: HwParams, kh: int, kw: int, cin: int) -> list[int]:
    """Depth k of each weight-stationary pass of a conv tile: kh*kw kernel taps, each
    split into ceil(cin / R) channel blocks."""
    blocks = [min(hw.array_rows, cin - b) for b in range(0, cin, hw.array_rows)]
    return blocks * (kh * kw)


@rule("matrix_conv")
def matrix_conv(hw: HwParams, m: int, kh: int, kw: int, cin: int, **_) -> int:
    """Sum over passes of matrix_gemm(m = oh*ow, k = pass depth): the hardware im2col streams
    each tap's shifted window of m = oh * ow output pixels as a GEMM against that tap's
    weights (`m` of isa.operands.cycle_operands)."""
    fixed = m + hw.array_rows + hw.array_cols - 1
    # in closed form (the compiler's tile choosers ask this thousands of times): each of the
    # kh*kw taps has ceil(cin / R) passes, whose depths add up to cin
    return kh * kw * (cin + ceil(cin / hw.array_rows) * fixed)


@rule("matrix_conv_wb2")
def matrix_conv_wb2(hw: HwParams, m: int, kh: int, kw: int, cin: int, **_) -> int:
    """The passes of matrix_conv on PEs with two weight banks (-weight-buffers=2,
    rtl/systolic_array.v WB = 2): each pass's k-cycle load goes into the bank the pass before
    does not use, while that pass streams. Pass i loads from cycle L[i] and streams its m
    rows from T[i]: L[0] = 0; L[i] = max(L[i-1] + k[i-1], T[i-2] + m - 1): the load before
    it has ended, and its bank's previous user (pass i-2) feeds its last row no later than
    the load's first step (each PE row joins a load one step after the row above, each
    column one cycle after the column left of it, as that pass's last row travels);
    T[i] = max(L[i] + k[i], T[i-1] + m): loaded, and the pass before has fed its last row.
    The conv ends R + C - 1 cycles after the last row enters: T[-1] + m + R + C - 1."""
    R, C = hw.array_rows, hw.array_cols
    first = min(R, cin)
    count = kh * kw * ceil(cin / R)
    if first <= m:
        # no load outlasts a stream (the deepest pass is the first): back to back
        return first + count * m + R + C - 1
    load = t = 0
    t1 = t2 = -m     # T[i-1], T[i-2] (none yet: they bind nothing)
    prev = 0         # k[i-1]
    for k in conv_passes(hw, kh, kw, cin):
        load = max(load + prev, t2 + m - 1)
        t = max(load + k, t1 + m)
        t2, t1, prev = t1, t, k
    return t + m + R + C - 1


@rule("matrix_gemm_os")
def matrix_gemm_os(hw: HwParams, m: int, k: int, n: int, **_) -> int:
    """ceil(m / R) * (k + R + C - 1): the output-stationary array holds a fold of R x C
    outputs (rows of m, n <= C columns), one per PE. Per fold: k cycles stream column t of
    the inputs into the rows (row r skewed r cycles) and row t of the weights into the columns
    (column c skewed c cycles), so PE (r, c) takes its last pair at cycle k - 1 + r + c; row r
    is complete at k - 1 + r + C - 1 and is read out across all columns then, one row a
    cycle, written at the next edge: k + R + C - 1 cycles. The sequencer runs the whole
    array's skew whatever m and n use, and starts a fold when the last one's rows are out."""
    return ceil(m / hw.array_rows) * (k + hw.array_rows + hw.array_cols - 1)


@rule("matrix_conv_os")
def matrix_conv_os(hw: HwParams, m: int, kh: int, kw: int, cin: int, **_) -> int:
    """matrix_gemm_os(m = oh * ow, k = kh * kw * cin): a fold of R output pixels streams the
    whole window, taps and channels, through the hardware im2col (no passes: the outputs stay
    in the PEs across taps and channel blocks)."""
    return matrix_gemm_os(hw, m=m, k=kh * kw * cin, n=0)


def dwconv_passes(hw: HwParams, kh: int, kw: int) -> list[int]:
    """Taps of each pass of a depthwise-mode tile: the kh*kw taps in blocks of R rows (a row
    holds one tap of every column's channel)."""
    taps = kh * kw
    return [min(hw.array_rows, taps - b) for b in range(0, taps, hw.array_rows)]


@rule("matrix_dwconv")
def matrix_dwconv(hw: HwParams, m: int, kh: int, kw: int, **_) -> int:
    """Sum over passes of matrix_gemm(m = oh*ow, k = the pass's taps): as a conv pass, but
    the k preloaded weight rows are taps (each column its own channel's) and each PE takes
    its tap's input pixel of its column's channel from its own im2col lane, so one pass does
    up to R taps of C channels."""
    passes = dwconv_passes(hw, kh, kw)
    return kh * kw + len(passes) * (m + hw.array_rows + hw.array_cols - 1)


@rule("vector_elementwise")
def vector_elementwise(hw: HwParams, len: int, **_) -> int:  # noqa: A002 (the spec field)
    """P + ceil(len / L): L elements per cycle after the pipeline fills."""
    return hw.vector_pipeline + ceil(len / hw.vector_lanes)


@rule("vector_requant")
def vector_requant(hw: HwParams, len: int, bias: int = 0, **_) -> int:  # noqa: A002
    """P + 2 + bias + ceil(len / L): two extra stages for the multiply and rounding shift,
    and with vrequant's bias field one more before them, the bias add."""
    return (hw.vector_pipeline + REQUANT_EXTRA_STAGES + (REQUANT_BIAS_STAGES if bias else 0)
            + ceil(len / hw.vector_lanes))


@rule("vector_pool")
def vector_pool(hw: HwParams, oh: int, ow: int, kh: int, kw: int, channels: int,
                **_) -> int:
    """P + oh*ow*kh*kw*ceil(c / L): one window element per cycle for L channels at once."""
    return hw.vector_pipeline + oh * ow * kh * kw * ceil(channels / hw.vector_lanes)


# ---- transformer instructions ----------------------------------------------------------------

EXP_EXTRA_STAGES = 5    # the log2(e) multiply, then one per Horner step of the 2^-g polynomial
RECIP_EXTRA_STAGES = 7  # the seed's multiply, then 3 Newton steps of 2 multiplies
RSQRT_EXTRA_STAGES = 10  # the seed's multiply, then 3 Newton steps of 3 multiplies


def row_chunks(hw: HwParams, rows: int, cols: int) -> int:
    """rows * ceil(cols / L): lane-wide chunks of a row-wise pass (no chunk spans two rows)."""
    return rows * ceil(cols / hw.vector_lanes)


@rule("vector_rowwise")
def vector_rowwise(hw: HwParams, rows: int, cols: int, **_) -> int:
    """P + rows * ceil(cols / L): one row at a time, L of its elements per cycle; a reduction
    (vrmax, vrsum) writes dst[r] with the row's last chunk, vrsub writes every chunk."""
    return hw.vector_pipeline + row_chunks(hw, rows, cols)


@rule("vector_rowmul")
def vector_rowmul(hw: HwParams, rows: int, cols: int, **_) -> int:
    """P + 2 + rows * ceil(cols / L): vrmul's multiply and rounding shift stages, as vrequant."""
    return hw.vector_pipeline + REQUANT_EXTRA_STAGES + row_chunks(hw, rows, cols)


@rule("vector_exp")
def vector_exp(hw: HwParams, len: int, **_) -> int:  # noqa: A002
    """P + 5 + ceil(len / L): five multiplier stages (log2(e) scaling, four Horner steps)."""
    return hw.vector_pipeline + EXP_EXTRA_STAGES + ceil(len / hw.vector_lanes)


@rule("vector_recip")
def vector_recip(hw: HwParams, len: int, **_) -> int:  # noqa: A002
    """P + 7 + ceil(len / L): the seed's multiply and three Newton steps of two multiplies."""
    return hw.vector_pipeline + RECIP_EXTRA_STAGES + ceil(len / hw.vector_lanes)


@rule("vector_rsqrt")
def vector_rsqrt(hw: HwParams, len: int, **_) -> int:  # noqa: A002
    """P + 10 + ceil(len / L): the seed's multiply and three Newton steps of three multiplies."""
    return hw.vector_pipeline + RSQRT_EXTRA_STAGES + ceil(len / hw.vector_lanes)
