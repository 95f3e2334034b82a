"""The float reference's pooling and strided 1x1 convs: the values and memory layout of the
plain forms they replace (calibration's statistics, hence every program hash, depend on both)."""

import itertools

import numpy as np

from compiler.ops import exact, kernels


def channel_major(x):
    return np.ascontiguousarray(x.transpose(3, 0, 1, 2)).transpose(1, 2, 3, 0)


def test_max_pool_is_the_window_max():
    rng = np.random.default_rng(0)
    cases = itertools.product([(1, 8, 8, 3), (2, 7, 5, 16)], [(3, 3), (2, 2), (3, 2)],
                              [(2, 2), (1, 1)], [(1, 1, 1, 1), (0, 0, 0, 0), (0, 1, 1, 0)],
                              [False, True], [np.float32, np.float16])
    for shape, kernel, strides, pads, major, dtype in cases:
        x = rng.standard_normal(shape).astype(dtype)
        x = channel_major(x) if major else x
        want = kernels.windows(x, kernel, strides, pads, (1, 1), fill=-np.inf).max(axis=(4, 5))
        got = kernels.max_pool_nhwc(x, kernel, strides, pads)
        assert got.dtype == x.dtype and got.strides == want.astype(x.dtype).strides
        assert np.array_equal(got, want)
    x = rng.standard_normal((1, 6, 6, 3)).astype(np.float32)
    x[0, 2, 2, 1] = np.nan  # propagates to the one window (rows/columns 1-3) holding it
    got = kernels.max_pool_nhwc(x, (3, 3), (2, 2), (1, 1, 1, 1))
    assert np.argwhere(np.isnan(got)).tolist() == [[0, 1, 1, 1]]


def test_strided_1x1_conv_reads_every_stride_th_pixel_of_the_whole_tensor_rounding():
    """x is rounded to integers with the whole tensor's peak (as for any conv), then the
    stride-th pixels are summed exactly; the output is channel major like every conv's."""
    rng = np.random.default_rng(1)
    for n, h, w, c, k, s, major in itertools.product([1, 2], [4, 7], [3, 6], [1, 5], [3],
                                                     [2, 3], [False, True]):
        x = rng.standard_normal((n, h, w, c)).astype(np.float32)
        x = channel_major(x) if major else x
        wt = rng.standard_normal((1, 1, c, k)).astype(np.float32)
        got = kernels._conv_matmul(x, wt, (s, s), (0, 0, 0, 0), (1, 1))
        bx, bw = exact.bits(c)
        qx, sx = exact.integers(x, bx)
        qw, sw = exact.integers(wt.reshape(c, k), bw, axis=0)
        sub = qx[:, ::s, ::s].astype(np.float64)
        sums = np.einsum("nhwc,ck->nhwk", sub, qw.astype(np.float64))  # integers < 2**53
        assert np.array_equal(got, np.ldexp(sums, sx + sw[0]).astype(np.float32))
        assert got.transpose(3, 0, 1, 2).flags.c_contiguous
