"""The int8 scheme's formulas: multipliers, weights, bias, add parameters, sigmoid LUT."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import qscheme as qs
from compiler.errors import QuantizationError
from isa.semantics import requantize


@pytest.mark.parametrize("m,expected", [
    (0.5, (2**30, 31)), (1.0, (2**30, 30)), (0.75, (3 * 2**29, 31)), (0.0, (0, 0)),
    (2.0**-40, (2**23, 63)),  # shift would be 70 > 63: 7 low mult bits are dropped
])
def test_known_multipliers(m, expected):
    assert qs.quantize_multiplier(m) == expected


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=2.0**-32, max_value=2.0**20, allow_nan=False))
def test_multiplier_is_normalized_and_accurate(m):
    mult, shift = qs.quantize_multiplier(m)
    assert 2**30 <= mult <= 2**31 - 1 and 0 <= shift <= 63
    assert abs(mult * 2.0**-shift - m) <= m * 2.0**-30


@settings(max_examples=200, deadline=None)
@given(st.integers(-(2**31), 2**31 - 1), st.floats(1e-4, 1.0))
def test_vrequant_with_quantized_multiplier_rounds_like_floats(acc, m):
    mult, shift = qs.quantize_multiplier(m)
    got = int(requantize(np.array([acc]), np.array([mult]), np.array([shift]), 0, False, 1)[0])
    want = int(np.clip(math.floor(acc * m + 0.5), -128, 127))
    # one rounding of acc * mult / 2^shift; mult is exact to 2^-31 relative
    assert abs(got - want) <= 1


def test_multiplier_limits():
    with pytest.raises(QuantizationError, match=">= 2\\^31"):
        qs.quantize_multiplier(2.0**32)
    with pytest.raises(QuantizationError, match="finite"):
        qs.quantize_multiplier(float("nan"))


def test_per_channel_weights_and_bias():
    w = np.array([[0.5, -2.0, 0.0], [0.25, 1.0, 0.0]], np.float32)   # (in=2, out=3)
    q, s = qs.quantize_weights(w, axis=1)
    assert s.tolist() == [0.5 / 127, 2.0 / 127, 1.0]                 # zero channel -> 1
    assert q.tolist() == [[127, -127, 0], [64, 64, 0]]               # 63.5 -> 64 (rint: even)
    b = qs.quantize_bias(np.array([1.0, -1.0, 1e9]), np.array([0.01, 0.001, 1e-3]))
    assert b.tolist() == [100, -1000, 2**31 - 1] and b.dtype == np.int32


def test_add_params_keep_products_in_int32():
    lm, rm, sh = qs.add_params(0.8, 0.3)
    assert sh == 15 and (lm, rm) == (round(0.8 * 2**15), round(0.3 * 2**15))
    assert max(lm, rm) * 128 * 2 < 2**31
    assert qs.add_params(1e6, 1.0)[2] == 0            # huge ratio: no fractional bits needed
    assert qs.add_params(1e-12, 1e-12)[2] == 31       # the vshr field is 5 bits


def test_clip_bounds_and_sigmoid_table():
    assert qs.clip_bounds(0.0, 6.0, 0.05) == (0, 120)
    assert qs.clip_bounds(0.0, 6.0, 0.01) == (0, 127)   # saturates to int8
    assert qs.clip_bounds(-np.inf, np.inf, 1.0) == (-128, 127)
    t = qs.sigmoid_table(0.1, 1 / 127)
    assert t.shape == (256,) and t.dtype == np.int8
    assert t[128] == 64                                   # sigmoid(0) = 0.5 -> 63.5 -> 64
    assert t[0] == round(127 / (1 + math.exp(12.8))) and t[255] == 127
    assert np.all(np.diff(t.astype(int)) >= 0)


def test_host_quantize_dequantize():
    q = qs.quantize(np.array([0.0, 0.25, -1.0, 100.0]), 0.5)
    assert q.tolist() == [0, 0, -2, 127]                  # 0.5 -> 0 (half to even)
    assert qs.dequantize(q, 0.5).tolist() == [0.0, 0.0, -1.0, 63.5]


def test_quantize_weights_chunked_path_is_the_one_pass_result():
    """Channel-last weights past one working buffer are quantized row block by row block:
    the same int8 values and scales as dividing the whole tensor at once (float64), with
    a zero channel, a ragged last block and the other axes through the one-pass path."""
    import numpy as np
    from compiler.ops.common import per_channel
    from compiler.qscheme import CHUNK, QMAX, quantize_weights, weight_scales
    rng = np.random.default_rng(5)
    w = rng.standard_normal((3, 3, 301, 64)).astype(np.float32) * 0.1
    w[..., 7] = 0.0
    assert w.size > CHUNK and (w.size // 64) % (CHUNK // 64)
    for axis in (-1, 0, 2):
        s = weight_scales(w, axis)
        q = np.divide(w, per_channel(s, axis % 4, 4), dtype=np.float64)
        want = np.clip(np.rint(q), -QMAX, QMAX).astype(np.int8)
        got, scales = quantize_weights(w, axis)
        assert got.dtype == np.int8 and np.array_equal(got, want) and np.array_equal(scales, s)
    absmax = np.abs(w).max(axis=(0, 1, 2)).astype(np.float64)  # the |w| form it replaced
    assert np.array_equal(weight_scales(w, -1), np.where(absmax > 0, absmax / QMAX, 1.0))


def _one_by_one(ms):
    pairs = [qs.quantize_multiplier(float(m)) for m in np.ravel(ms)]
    return [np.array([p[k] for p in pairs], np.int32) for k in (0, 1)]


def test_vector_multipliers_are_the_scalar_ones_element_by_element():
    rng = np.random.default_rng(1)
    powers = np.exp2(np.arange(-100.0, 31.0))
    cases = [rng.uniform(0, 1, 2000), np.exp(rng.uniform(-60, 21, 5000)),
             np.array([0.0, -0.0, 5e-324, 1e-300, 2.0**-32, 2.0**-33, 2.0**-95, 2.0**-96, 1.0,
                       2.0**30, 1 - 2.0**-32, 1 - 2.0**-31, 0.9999999999999999]),
             np.nextafter(powers, 0), powers * (1 - 2.0**-32), powers * (1 + 2.0**-31)]
    for ms in cases:  # rounding up to 2^31, the register's shift limit, tiny and zero values
        got, want = qs.quantize_multipliers(ms), _one_by_one(ms)
        assert all(g.dtype == np.int32 and np.array_equal(g, w) for g, w in zip(got, want))
    for bad in ([1.0, -1.0], [2.0**40, np.nan], [np.nan, 2.0**40], [0.5, 2.0**31 - 1e-6]):
        with pytest.raises(QuantizationError) as vec:  # the first bad element, as one by one
            qs.quantize_multipliers(np.array(bad))
        with pytest.raises(QuantizationError) as one:
            _one_by_one(bad)
        assert str(vec.value) == str(one.value)
