"""isa.timing implements exactly the cycle formulas the ISA spec states in [timing]."""

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isa import timing
from isa.errors import SpecError
from isa.codec import instruction
from isa.operands import cycle_operands
from isa.spec import load_spec
from isa.target import Target

SPEC = load_spec()


def formula(rule: str, **symbols) -> int:
    """Evaluate the spec's formula text for `rule` with the given symbol values."""
    # one namespace: a generator expression in the formula sees only globals
    namespace = {"__builtins__": {}, "ceil": math.ceil, "sum": sum, "min": min, "max": max,
                 **symbols}
    return eval(SPEC.timing[rule].cycles, namespace)


hw_params = st.builds(
    timing.HwParams, array_rows=st.integers(1, 32), array_cols=st.integers(1, 32),
    vector_lanes=st.integers(1, 64), vector_pipeline=st.integers(0, 64),
    dma_setup=st.integers(0, 1000), dram_latency=st.integers(0, 10000),
    dram_bw=st.integers(1, 1024), dma_fill_lanes=st.integers(1, 1024))


def symbols(hw):
    return dict(R=hw.array_rows, C=hw.array_cols, L=hw.vector_lanes, P=hw.vector_pipeline,
                S=hw.dma_setup, Lat=hw.dram_latency, BW=hw.dram_bw, F=hw.dma_fill_lanes)


def test_every_rule_named_by_an_instruction_is_implemented():
    used = {i.timing for i in SPEC.instructions}
    assert used <= set(SPEC.timing)
    assert set(SPEC.timing) == set(timing.RULES)


@pytest.mark.parametrize("rule", ["dispatch", "cfg", "sync", "barrier"])
def test_constant_rules(rule):
    hw = timing.HwParams.from_target(Target.create("npu-edge"))
    assert timing.RULES[rule](hw) == formula(rule)
    for ins in SPEC.instructions:
        if ins.timing == rule:
            assert timing.cycles(hw, ins) == formula(rule), ins.mnemonic


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, nbytes=st.integers(0, 1 << 24), fill=st.integers(0, 1 << 24))
def test_dma(hw, nbytes, fill):
    assert timing.dma(hw, nbytes, fill) == formula("dma", bytes=nbytes, fill=fill, **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, store=st.booleans(), planes=st.integers(1, 4095),
       rows=st.integers(1, 4095), cols=st.integers(1, 4095),
       pads=st.tuples(*[st.integers(0, 7)] * 4), abuf=st.booleans())
def test_dma_unit_cycles_reads_bytes_and_fill_from_the_instruction(hw, store, planes, rows,
                                                                   cols, pads, abuf):
    """unit_cycles of a load/store (its rule chosen by its spec key, its operands from
    isa.operands): the spec's bytes and fill definitions, from its fields."""
    eb = 4 if abuf else 1
    buf = "abuf" if abuf else "ibuf"
    geometry = dict(chan=0, buf=buf, sram=0, dram=0, rows=rows, cols=cols, stride=cols * eb)
    pt, pb, pl, pr = pads
    if store:
        instr = instruction("store", **geometry)
    else:
        instr = instruction("load", pad_top=pt, pad_bottom=pb, pad_left=pl, pad_right=pr,
                            **geometry)
    fill = 0 if store or not any(pads) else planes * (pt + rows + pb) * (pl + cols + pr)
    regs = {"dma_planes": planes}
    assert timing.unit_cycles(hw, instr, regs, elem_bytes=eb) == formula(
        "dma", bytes=planes * rows * cols * eb, fill=fill, **symbols(hw))


def test_dma_fill_bound_binds_only_past_the_transfer():
    """npu-tiny numbers (S=2, Lat=10, BW=4, F=16): a 1x1 int8 load with 7 pad rows and
    columns each side fills 15 * 15 = 225 elements in 15 cycles, past 2 + 10 + 1 = 13; with
    one pad each side (9 elements, 1 cycle) the transfer's 13 cycles stand."""
    hw = timing.HwParams.from_target(Target.from_string("npu-tiny"))
    assert (hw.dma_setup, hw.dram_latency, hw.dram_bw, hw.dma_fill_lanes) == (2, 10, 4, 16)
    assert timing.dma_fill(hw, 225) == 15
    assert timing.dma(hw, 1, 225) == 15
    assert timing.dma(hw, 1, 9) == 13
    assert timing.dma(hw, 1) == 13


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, m=st.integers(1, 65535), k=st.integers(1, 255), n=st.integers(1, 255))
def test_matrix_gemm(hw, m, k, n):
    assert timing.matrix_gemm(hw, m, k, n) == formula("matrix_gemm", m=m, k=k, n=n, **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, length=st.integers(1, 65535))
def test_vector_rules(hw, length):
    for rule in ("vector_elementwise", "vector_requant"):
        assert timing.RULES[rule](hw, len=length) == formula(rule, len=length, bias=0,
                                                             **symbols(hw))
    # vrequant's bias field: one more stage, read from the instruction's own fields
    for bias in (0, 1):
        instr = instruction("vrequant", len=length, channels=1, bias=bias)
        assert timing.unit_cycles(hw, instr, {}) == formula("vector_requant", len=length,
                                                            bias=bias, **symbols(hw))
    for ins in SPEC.instructions:
        if ins.cls == "vector" and ins.format in ("unary", "binary"):
            assert timing.cycles(hw, ins, len=length) == formula(ins.timing, len=length, bias=0,
                                                                 **symbols(hw)), ins.mnemonic


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, rows=st.integers(1, 65535), cols=st.integers(1, 4095))
def test_row_rules(hw, rows, cols):
    """vrmax/vrsum/vrsub/vrmul: rows x cols tiles, from the instruction's own fields."""
    row_formats = [i for i in SPEC.instructions if i.format in ("rowreduce", "rowbcast")]
    assert {i.mnemonic for i in row_formats} == {"vrmax", "vrsum", "vrsub", "vrmul"}
    for ins in row_formats:
        instr = instruction(ins.mnemonic, rows=rows, cols=cols)
        assert timing.unit_cycles(hw, instr, {}) == formula(ins.timing, rows=rows, cols=cols,
                                                            **symbols(hw)), ins.mnemonic


def test_transformer_rules_on_npu_tiny():
    """Hand-computed on npu-tiny (L=4, P=2): a 3 x 10 tile is 3 rows of ceil(10/4) = 3 chunks."""
    hw = timing.HwParams.from_target(Target.from_string("npu-tiny"))
    assert (hw.vector_lanes, hw.vector_pipeline) == (4, 2)
    assert timing.cycles(hw, SPEC.instruction("vrmax"), rows=3, cols=10) == 2 + 9
    assert timing.cycles(hw, SPEC.instruction("vrsub"), rows=3, cols=10) == 2 + 9
    assert timing.cycles(hw, SPEC.instruction("vrmul"), rows=3, cols=10) == 2 + 2 + 9
    assert timing.cycles(hw, SPEC.instruction("vexp"), len=10) == 2 + 5 + 3
    assert timing.cycles(hw, SPEC.instruction("vrecip"), len=10) == 2 + 7 + 3
    assert timing.cycles(hw, SPEC.instruction("vrsqrt"), len=10) == 2 + 10 + 3


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, in_h=st.integers(3, 40), in_w=st.integers(3, 40), cin=st.integers(1, 300),
       cout=st.integers(1, 32), kh=st.integers(1, 3), kw=st.integers(1, 3),
       stride=st.integers(1, 3), pad=st.integers(0, 2))
def test_matrix_conv(hw, in_h, in_w, cin, cout, kh, kw, stride, pad):
    regs = dict(conv_kh=kh, conv_kw=kw, conv_stride_h=stride, conv_stride_w=stride,
                conv_pad_top=pad, conv_pad_bottom=pad, conv_pad_left=pad, conv_pad_right=pad,
                conv_dilation_h=1, conv_dilation_w=1)
    conv = instruction("conv", in_h=in_h, in_w=in_w, cin=cin, cout=cout)
    oh = (in_h + 2 * pad - kh) // stride + 1
    ow = (in_w + 2 * pad - kw) // stride + 1
    R = hw.array_rows
    passes = [min(R, cin - b) for b in range(0, cin, R)] * (kh * kw)
    assert timing.unit_cycles(hw, conv, regs) == formula(
        "matrix_conv", passes=passes, oh=oh, ow=ow, **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, m=st.integers(1, 65535), k=st.integers(1, 255), n=st.integers(1, 255))
def test_matrix_gemm_os(hw, m, k, n):
    """The output-stationary gemm, chosen by the spec's [dataflow.os] for -dataflow=os."""
    os_hw = dataclasses.replace(hw, dataflow="os")
    gemm = instruction("gemm", m=m, k=k, n=n)
    assert timing.unit_cycles(os_hw, gemm, {}) == formula("matrix_gemm_os", m=m, k=k, n=n,
                                                          **symbols(hw))
    assert timing.unit_cycles(hw, gemm, {}) == formula("matrix_gemm", m=m, k=k, n=n,
                                                       **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, in_h=st.integers(3, 40), in_w=st.integers(3, 40), cin=st.integers(1, 300),
       cout=st.integers(1, 32), kh=st.integers(1, 3), kw=st.integers(1, 3),
       stride=st.integers(1, 3), pad=st.integers(0, 2))
def test_matrix_conv_os(hw, in_h, in_w, cin, cout, kh, kw, stride, pad):
    regs = dict(conv_kh=kh, conv_kw=kw, conv_stride_h=stride, conv_stride_w=stride,
                conv_pad_top=pad, conv_pad_bottom=pad, conv_pad_left=pad, conv_pad_right=pad,
                conv_dilation_h=1, conv_dilation_w=1)
    conv = instruction("conv", in_h=in_h, in_w=in_w, cin=cin, cout=cout)
    oh = (in_h + 2 * pad - kh) // stride + 1
    ow = (in_w + 2 * pad - kw) // stride + 1
    assert timing.unit_cycles(dataclasses.replace(hw, dataflow="os"), conv, regs) == formula(
        "matrix_conv_os", oh=oh, ow=ow, kh=kh, kw=kw, cin=cin, **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, in_h=st.integers(1, 12), in_w=st.integers(1, 12), cin=st.integers(1, 300),
       cout=st.integers(1, 32), kh=st.integers(1, 3), kw=st.integers(1, 3),
       stride=st.integers(1, 3))
def test_matrix_conv_wb2(hw, in_h, in_w, cin, cout, kh, kw, stride):
    """Two weight banks per PE (the spec's [weight_buffers.2] for -weight-buffers=2): the
    conv's rule is matrix_conv_wb2, the spec's recurrence over the same passes; small maps
    (m < k: load-bound) and large ones alike."""
    kh, kw = min(kh, in_h), min(kw, in_w)
    regs = dict(conv_kh=kh, conv_kw=kw, conv_stride_h=stride, conv_stride_w=stride,
                conv_pad_top=0, conv_pad_bottom=0, conv_pad_left=0, conv_pad_right=0,
                conv_dilation_h=1, conv_dilation_w=1)
    conv = instruction("conv", in_h=in_h, in_w=in_w, cin=cin, cout=cout)
    oh, ow = (in_h - kh) // stride + 1, (in_w - kw) // stride + 1
    R = hw.array_rows
    passes = [min(R, cin - b) for b in range(0, cin, R)] * (kh * kw)
    two = dataclasses.replace(hw, weight_buffers=2)
    assert timing.unit_cycles(two, conv, regs) == formula(
        "matrix_conv_wb2", passes=passes, oh=oh, ow=ow, **symbols(hw))
    assert timing.unit_cycles(two, conv, regs) <= timing.unit_cycles(hw, conv, regs)
    gemm = instruction("gemm", m=oh * ow, k=min(R, cin), n=1)
    assert timing.unit_cycles(two, gemm, {}) == timing.unit_cycles(hw, gemm, {})


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, in_h=st.integers(2, 40), in_w=st.integers(2, 40),
       channels=st.integers(1, 300), k=st.integers(1, 3), stride=st.integers(1, 3))
def test_vector_pool(hw, in_h, in_w, channels, k, stride):
    regs = dict(pool_kh=k, pool_kw=k, pool_stride_h=stride, pool_stride_w=stride,
                pool_pad_top=0, pool_pad_bottom=0, pool_pad_left=0, pool_pad_right=0)
    oh, ow = (in_h - k) // stride + 1, (in_w - k) // stride + 1
    for mnemonic in ("vmaxpool", "vsumpool"):
        pool = instruction(mnemonic, in_h=in_h, in_w=in_w, channels=channels)
        assert cycle_operands(pool, regs)["m"] == oh * ow
        assert timing.unit_cycles(hw, pool, regs) == formula(
            "vector_pool", oh=oh, ow=ow, kh=k, kw=k, channels=channels, **symbols(hw))


def test_a_rule_without_its_operands_is_a_spec_error_naming_them():
    hw = timing.HwParams.from_target(Target.create("npu-edge"))
    with pytest.raises(SpecError, match=r"'gemm'.*'matrix_gemm' needs operand\(s\) n"):
        timing.cycles(hw, SPEC.instruction("gemm"), m=4, k=4)


def test_override_replaces_a_rule_only_inside_the_block():
    hw = timing.HwParams.from_target(Target.create("npu-edge"))
    vrequant = SPEC.instruction("vrequant")
    before = timing.cycles(hw, vrequant, len=64)
    with timing.override("vector_requant", lambda hw, **ops: 1000) as original:
        assert timing.cycles(hw, vrequant, len=64) == 1000
        assert original(hw, len=64) == before
    assert timing.cycles(hw, vrequant, len=64) == before
