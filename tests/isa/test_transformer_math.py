"""The error bounds docs/transformer.md states for vexp/vrecip/vrsqrt, measured against float,
and its Softmax and LayerNorm instruction sequences run through isa.semantics."""

from __future__ import annotations

import numpy as np
import pytest

from isa import semantics as S

RNG = np.random.default_rng(15)
I32 = np.int32


def _excess(y, exact):
    """Relative error left after the 0.5 LSB of the final rounding."""
    err = np.abs(y.astype(np.float64) - exact)
    return np.max(np.maximum(err - 0.5, 0) / np.maximum(np.abs(exact), 1e-300))


@pytest.mark.parametrize("in_frac,out_frac", [(0, 30), (8, 15), (16, 16), (20, 30), (24, 8),
                                              (31, 30), (4, 0)])
def test_vexp_within_half_lsb_plus_4e6_relative(in_frac, out_frac):
    x = -RNG.integers(0, min(2**31, 40 << in_frac), 100_000)
    x = np.concatenate([x, [0, -1, -(2**31)]])
    y = S.exp_fixed(x, in_frac, out_frac)
    exact = np.exp(x / 2.0**in_frac) * 2.0**out_frac
    assert _excess(y, exact) <= 4e-6
    assert y[-3] == 2**out_frac  # exp(0) is exactly one


def test_vexp_clamps_positive_inputs_and_flushes_very_negative_ones_to_zero():
    x = np.array([5, 2**31 - 1, -(33 << 16), -(2**31)])
    assert S.exp_fixed(x, 16, 30).tolist() == [2**30, 2**30, 0, 0]
    assert S.exp_fixed(np.array([-(2**31)]), 0, 30).tolist() == [0]


@pytest.mark.parametrize("in_frac,out_frac", [(0, 30), (8, 15), (16, 16), (0, 0), (10, 20),
                                              (31, 0)])
def test_vrecip_within_half_lsb_plus_2_27_relative(in_frac, out_frac):
    x = np.concatenate([RNG.integers(1, 2**31, 100_000), 2 ** RNG.integers(0, 31, 1000),
                        [1, 2**31 - 1]])
    for sign in (1, -1):
        y = S.recip_fixed(sign * x, in_frac, out_frac)
        exact = sign * 2.0 ** (in_frac + out_frac) / x
        fits = np.abs(exact) < 2**31 - 1
        assert _excess(y[fits], exact[fits]) <= 2**-27


def test_vrecip_edges():
    y = S.recip_fixed(np.array([1, -1, 0, 2**31 - 1, -(2**31), 2]), 0, 30)
    assert y.tolist() == [2**30, -(2**30), S.INT32_MAX, 1, -1, 2**29]
    # 1 / tiny overflows int32: the instruction saturates it
    assert S.vrecip(np.array([1], dtype=I32), 16, 30, np.int32).tolist() == [S.INT32_MAX]


@pytest.mark.parametrize("in_frac,out_frac", [(0, 30), (8, 15), (16, 16), (0, 0), (4, 20),
                                              (31, 16), (7, 24)])
def test_vrsqrt_within_half_lsb_plus_2_27_relative(in_frac, out_frac):
    x = np.concatenate([RNG.integers(1, 2**31, 100_000), 2 ** RNG.integers(0, 31, 1000),
                        [1, 2**31 - 1]])
    y = S.rsqrt_fixed(x, in_frac, out_frac)
    exact = 2.0**out_frac / np.sqrt(x / 2.0**in_frac)
    fits = exact < 2**31 - 1
    assert _excess(y[fits], exact[fits]) <= 2**-27


def test_vrsqrt_edges():
    y = S.rsqrt_fixed(np.array([1, 4, 0, -7, 2**30]), 0, 30)
    assert y.tolist() == [2**30, 2**29, S.INT32_MAX, S.INT32_MAX, 2**15]
    assert S.rsqrt_fixed(np.array([2**31 - 1]), 0, 30)[0] == round(2**30 / np.sqrt(2**31 - 1))


def test_fp_mode_is_ieee():
    x = np.array([-1.5, 0.0, 2.0], dtype=np.float16)
    assert np.allclose(S.vexp(x, 3, 4, np.float16), np.exp(x.astype(np.float64)), rtol=1e-3)
    assert S.vrecip(x, 0, 0, np.float32).tolist()[1] == np.inf
    assert S.vrsqrt(np.array([4.0], dtype=np.float16), 0, 0, np.float16).tolist() == [0.5]
    got = S.row_mul(np.array([1.0, 2, 3, 4], dtype=np.float16), np.array([2.0, -1], np.float32),
                    7, 2, 2, np.float16)
    assert got.tolist() == [2.0, 4.0, -3.0, -4.0]


def test_row_ops_saturate_once_and_broadcast_per_row():
    a = np.array([100, 100, 100, -128, -128, 5], dtype=np.int8)
    assert S.row_sum(a, 2, 3, np.int8).tolist() == [127, -128]
    assert S.row_sum(a, 2, 3, np.int32).tolist() == [300, -251]
    assert S.row_max(a, 3, 2, np.int32).tolist() == [100, 100, 5]
    assert S.row_sub(a, np.array([-100, 100], np.int32), 2, 3, np.int8).tolist() == \
        [127, 127, 127, -128, -128, -95]
    big = np.array([S.INT32_MIN, S.INT32_MAX], dtype=np.int32)
    assert S.row_mul(big, np.array([S.INT32_MIN], np.int32), 31, 1, 2, np.int32).tolist() == \
        [2**31 - 1, -(2**31) + 1]
    assert S.row_mul(np.array([3, -3], np.int32), np.array([1], np.int32), 1, 1, 2,
                     np.int32).tolist() == [2, -1]  # rounding half up


def _softmax_q7(q, s_x):
    """docs/transformer.md's Softmax sequence, instruction by instruction."""
    rows, cols = q.shape
    flat = q.reshape(-1)
    mx = S.row_max(flat, rows, cols, np.int32)
    d = S.row_sub(flat, mx, rows, cols, np.int32)
    sx = np.full(rows, round(s_x * 2**32), dtype=np.int32)
    d = S.row_mul(d, sx, 12, rows, cols, np.int32)
    e = S.vexp(d, 20, 15, np.int32)
    s = S.row_sum(e, rows, cols, np.int32)
    inv = S.vrecip(s, 15, 23, np.int32)
    return S.row_mul(e, inv, 31, rows, cols, np.int8).reshape(rows, cols)


@pytest.mark.parametrize("s_x,cols", [(0.05, 128), (0.2, 64), (0.01, 1024), (0.4, 7)])
def test_softmax_row_sequence_within_one_lsb(s_x, cols):
    q = RNG.integers(-128, 128, (8, cols)).astype(np.int8)
    x = q.astype(np.float64) * s_x
    p = np.exp(x - x.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    want = np.minimum(p * 128, 127)
    assert np.abs(_softmax_q7(q, s_x) - want).max() <= 1.0


def _layernorm(q, s_x, gamma, beta, s_y, eps=1e-5, fm=2, ft=10):
    """docs/transformer.md's LayerNorm sequence, instruction by instruction."""
    rows, n = q.shape
    flat = q.reshape(-1)
    table = lambda v: np.full(rows, v, dtype=np.int32)  # noqa: E731
    s1 = S.row_sum(flat, rows, n, np.int32)
    mu = S.row_mul(s1, table(round(2 ** (fm + 20) / n)), 20, rows, 1, np.int32)
    d = S.row_mul(flat, table(2**fm), 0, rows, n, np.int32)
    d = S.row_sub(d, mu, rows, n, np.int32)
    d2 = S.elementwise("vmul", d, d, np.int32)
    v = S.row_sum(d2, rows, n, np.int32)
    v = S.row_mul(v, table(round(2**20 / n)), 20, rows, 1, np.int32)
    v = S.bias_add(v, np.array([round(eps / s_x**2 * 2 ** (2 * fm))], np.int32), 1, np.int32)
    inv = S.vrsqrt(v, 2 * fm, 20, np.int32)
    t = S.row_mul(d, inv, fm + 20 - ft, rows, n, np.int32)
    scale = gamma / (s_y * 2**ft)
    shift = np.full(n, 31)
    mult = np.round(scale * 2.0**31).astype(np.int32)  # vrequant's int32 multipliers
    y = S.requantize(t, mult, shift, 0, False, n)
    return S.bias_add(y, np.round(beta / s_y).astype(np.int32), n, np.int8).reshape(rows, n)


@pytest.mark.parametrize("n", [128, 192, 768])
def test_layernorm_row_sequence_within_two_lsb(n):
    # s_y covers |gamma * normalized| (up to ~1.5 * 4.5): the int8 before vbias saturates
    s_x, s_y = 0.05, 8.0 / 127
    q = np.clip(RNG.normal(0, 40, (6, n)) + RNG.normal(0, 20, (6, 1)), -128, 127).astype(np.int8)
    gamma = RNG.uniform(0.5, 1.5, n)
    beta = RNG.uniform(-0.5, 0.5, n)
    x = q.astype(np.float64) * s_x
    mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    want = np.clip(((x - mean) / np.sqrt(var + 1e-5) * gamma + beta) / s_y, -128, 127)
    got = _layernorm(q, s_x, gamma, beta, s_y)
    assert np.abs(got - want).max() <= 1.5
