"""npusim.exec.kernels (the hot semantics operations in fewer numpy calls) equal isa.semantics
bit for bit: random int32 extremes, every shift 0..63, zero points, relu, every elementwise op,
int8 and int32 destinations, and lengths that are not a whole number of pixels."""

import numpy as np
import pytest

from isa import semantics
from npusim.exec import kernels

I32 = np.iinfo(np.int32)


def ints(rng, n, dtype=np.int32):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)
    x[:2] = [info.min, info.max][:min(2, n)]
    return x


def same(got, want):
    return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("seed", range(6))
def test_requantize(seed):
    rng = np.random.default_rng(seed)
    channels = int(rng.integers(1, 40))
    n = channels * int(rng.integers(1, 30)) + (seed == 5)  # seed 5: not whole pixels
    acc, mult = ints(rng, n), ints(rng, channels)
    shift = rng.integers(0, 64, channels).astype(np.int32)
    shift[:2] = [0, 63][:min(2, channels)]
    for zp in (0, -128, 5, 127):
        for relu in (False, True):
            assert same(kernels.requantize(acc, mult, shift, zp, relu, channels),
                        semantics.requantize(acc, mult, shift, zp, relu, channels)), (zp, relu)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", [np.int8, np.int32])
def test_bias_add(seed, dtype):
    rng = np.random.default_rng(seed)
    channels = int(rng.integers(1, 40))
    n = channels * int(rng.integers(1, 30)) + (seed == 3)
    a, bias = ints(rng, n), ints(rng, channels + 3)  # a longer table: only its first channels
    assert same(kernels.bias_add(a, bias, channels, dtype),
                semantics.bias_add(a, bias, channels, dtype))


@pytest.mark.parametrize("op", sorted(semantics.ELEMENTWISE))
@pytest.mark.parametrize("src", [np.int8, np.int32])
@pytest.mark.parametrize("dtype", [np.int8, np.int32])
def test_elementwise(op, src, dtype):
    rng = np.random.default_rng(len(op))
    a, b = ints(rng, 257, src), ints(rng, 257, src)
    assert same(kernels.elementwise(op, a, b, dtype), semantics.elementwise(op, a, b, dtype))


def test_floats_go_to_the_reference():
    a = np.linspace(-3, 3, 12).astype(np.float16)
    b = np.arange(12).astype(np.float16)
    assert same(kernels.elementwise("vmul", a, b, np.float16),
                semantics.elementwise("vmul", a, b, np.float16))
    assert same(kernels.bias_add(a, b[:4], 4, np.float16), semantics.bias_add(a, b[:4], 4, np.float16))


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (256, 16, 16), (64, 144, 16), (7, 1024, 5),
                                   (3, 1025, 2)])
def test_gemm(m, k, n):
    rng = np.random.default_rng(k)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    w = rng.integers(-128, 128, (k, n)).astype(np.int8)
    a[0, :], w[:, 0] = -128, -128  # the largest products, all of one sign: the deepest sums
    acc = ints(rng, m * n).reshape(m, n)  # int32 extremes: the sum wraps
    for c in (None, acc):
        assert same(kernels.gemm(a, w, c), semantics.gemm(a, w, c))
    assert same(kernels.gemm(a, w.T.copy().T, acc), semantics.gemm(a, w, acc))  # a strided w
