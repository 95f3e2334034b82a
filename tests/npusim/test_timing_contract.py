"""npusim.timing implements exactly the cycle formulas the ISA spec states in [timing]."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isa.spec import load_spec
from npusim import timing

SPEC = load_spec()


def formula(rule: str, **symbols) -> int:
    """Evaluate the spec's formula text for `rule` with the given symbol values."""
    # one namespace: a generator expression in the formula sees only globals
    namespace = {"__builtins__": {}, "ceil": math.ceil, "sum": sum, "min": min, **symbols}
    return eval(SPEC.timing[rule].cycles, namespace)


hw_params = st.builds(
    timing.HwParams, array_rows=st.integers(1, 32), array_cols=st.integers(1, 32),
    vector_lanes=st.integers(1, 64), vector_pipeline=st.integers(0, 64),
    dma_setup=st.integers(0, 1000), dram_latency=st.integers(0, 10000),
    dram_bw=st.integers(1, 1024))


def symbols(hw):
    return dict(R=hw.array_rows, C=hw.array_cols, L=hw.vector_lanes, P=hw.vector_pipeline,
                S=hw.dma_setup, Lat=hw.dram_latency, BW=hw.dram_bw)


def test_every_rule_named_by_an_instruction_is_implemented():
    used = {i.timing for i in SPEC.instructions}
    assert used <= set(SPEC.timing)
    assert set(SPEC.timing) == set(timing.RULES)


@pytest.mark.parametrize("rule", ["dispatch", "cfg", "sync", "barrier"])
def test_constant_rules(rule):
    assert timing.RULES[rule]() == formula(rule)


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, nbytes=st.integers(0, 1 << 24))
def test_dma(hw, nbytes):
    assert timing.dma(hw, nbytes) == formula("dma", bytes=nbytes, **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, m=st.integers(1, 65535), k=st.integers(1, 255), n=st.integers(1, 255))
def test_matrix_gemm(hw, m, k, n):
    assert timing.matrix_gemm(hw, m, k, n) == formula("matrix_gemm", m=m, k=k, n=n, **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, length=st.integers(1, 65535))
def test_vector_rules(hw, length):
    for rule in ("vector_elementwise", "vector_requant"):
        assert timing.RULES[rule](hw, length) == formula(rule, len=length, **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, in_h=st.integers(3, 40), in_w=st.integers(3, 40), cin=st.integers(1, 300),
       cout=st.integers(1, 32), kh=st.integers(1, 3), kw=st.integers(1, 3),
       stride=st.integers(1, 3), pad=st.integers(0, 2))
def test_matrix_conv(hw, in_h, in_w, cin, cout, kh, kw, stride, pad):
    regs = dict(conv_kh=kh, conv_kw=kw, conv_stride_h=stride, conv_stride_w=stride,
                conv_pad_top=pad, conv_pad_bottom=pad, conv_pad_left=pad, conv_pad_right=pad,
                conv_dilation_h=1, conv_dilation_w=1)
    fields = dict(in_h=in_h, in_w=in_w, cin=cin, cout=cout)
    oh = (in_h + 2 * pad - kh) // stride + 1
    ow = (in_w + 2 * pad - kw) // stride + 1
    R = hw.array_rows
    passes = [min(R, cin - b) for b in range(0, cin, R)] * (kh * kw)
    assert timing.matrix_conv(hw, fields, regs) == formula(
        "matrix_conv", passes=passes, oh=oh, ow=ow, **symbols(hw))


@settings(max_examples=200, deadline=None)
@given(hw=hw_params, in_h=st.integers(2, 40), in_w=st.integers(2, 40),
       channels=st.integers(1, 300), k=st.integers(1, 3), stride=st.integers(1, 3))
def test_vector_pool(hw, in_h, in_w, channels, k, stride):
    regs = dict(pool_kh=k, pool_kw=k, pool_stride_h=stride, pool_stride_w=stride,
                pool_pad_top=0, pool_pad_bottom=0, pool_pad_left=0, pool_pad_right=0)
    oh, ow = (in_h - k) // stride + 1, (in_w - k) // stride + 1
    fields = dict(in_h=in_h, in_w=in_w, channels=channels)
    assert timing.vector_pool(hw, fields, regs) == formula(
        "vector_pool", oh=oh, ow=ow, kh=k, kw=k, channels=channels, **symbols(hw))
