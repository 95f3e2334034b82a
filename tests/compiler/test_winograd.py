"""The float reference's Winograd 3x3 convs give the direct form's exact bits, layout included,
and hand back to the direct form where the data-dependent bound does not prove exactness."""

import itertools

import numpy as np
import pytest

from compiler.ops import exact, kernels, winograd


def direct(x, w, pads, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(kernels, "WINOGRAD_PIXELS", 10 ** 9)
        return kernels._conv_matmul(x, w, (1, 1), pads, (1, 1))


def channel_major(x):
    """x laid out as a conv's output is: channels outermost in memory, NHWC-shaped view."""
    return np.ascontiguousarray(x.transpose(3, 0, 1, 2)).transpose(1, 2, 3, 0)


@pytest.mark.parametrize("n,h,w,cin,cout", [(1, 3, 3, 1, 1), (1, 7, 8, 5, 3),
                                            (2, 6, 5, 16, 9), (1, 14, 14, 64, 8)])
def test_winograd_is_bit_identical_to_the_direct_form(n, h, w, cin, cout, monkeypatch):
    monkeypatch.setattr(kernels, "WINOGRAD_PIXELS", 1)
    taken = []  # the cases Winograd's form computed (not handed to the direct form)
    conv = winograd.conv
    monkeypatch.setattr(winograd, "conv", lambda *a: taken.append(conv(*a)) or taken[-1])
    rng = np.random.default_rng(h * 100 + cin)
    pads_list = [(1, 1, 1, 1), (0, 0, 0, 0), (2, 0, 1, 3)]
    for pads, major, relu in itertools.product(pads_list, (False, True), (False, True)):
        x = rng.standard_normal((n, h, w, cin)).astype(np.float32)
        x = np.maximum(x, 0) if relu else x
        x = channel_major(x) if major else x
        wt = (rng.standard_normal((3, 3, cin, cout)) * [10.0 ** k for k in range(-1, cout - 1)]
              ).astype(np.float32)  # output channels of very different magnitudes
        got, want = kernels._conv_matmul(x, wt, (1, 1), pads, (1, 1)), direct(x, wt, pads,
                                                                              monkeypatch)
        assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
        assert got.strides == want.strides  # later ops' reductions see the same memory order
        assert np.array_equal(got, want)
    assert len(taken) == 12 and sum(t is not None for t in taken) >= 8  # (tiny K: tight bits)


def test_winograd_takes_the_direct_form_where_its_bound_fails(monkeypatch):
    """+-1 everywhere puts every |x| and |w| at its peak: the direct bound holds by
    construction, Winograd's grown sums do not provably stay below 2**53."""
    monkeypatch.setattr(kernels, "WINOGRAD_PIXELS", 1)
    rng = np.random.default_rng(0)
    x = rng.choice([-1.0, 1.0], (1, 6, 6, 64)).astype(np.float32)
    w = rng.choice([-1.0, 1.0], (3, 3, 64, 64)).astype(np.float32)
    bx, bw = exact.bits(9 * 64)
    qx, _ = exact.integers(x, bx)
    qw, _ = exact.constant_integers(w, bw, (0, 1, 2))
    assert winograd.conv(qx, bx, qw, (1, 1, 1, 1)) is None
    assert np.array_equal(kernels._conv_matmul(x, w, (1, 1), (1, 1, 1, 1), (1, 1)),
                          direct(x, w, (1, 1, 1, 1), monkeypatch))
    x[0, 2, 3, 5] = np.inf  # a non-finite input: no bound, the direct form's inf/nan
    assert winograd.conv(exact.integers(x, bx)[0], bx, qw, (1, 1, 1, 1)) is None
    got = kernels._conv_matmul(x, w, (1, 1), (1, 1, 1, 1), (1, 1))
    assert np.array_equal(got, direct(x, w, (1, 1, 1, 1), monkeypatch), equal_nan=True)


def test_weight_transform_is_memoized_per_calibration():
    qw = np.arange(3 * 3 * 2 * 4, dtype=np.float64).reshape(3, 3, 2, 4)
    with exact.constants_memo():
        first = exact.constant(qw, "winograd", winograd.weights)
        assert exact.constant(qw, "winograd", winograd.weights) is first
    u, bound = first
    g = qw.transpose(2, 3, 0, 1)  # (cin, cout, 3, 3)
    gp = np.array([[2, 0, 0], [1, 1, 1], [1, -1, 1], [0, 0, 2]], np.float64)
    want = np.einsum("ia,jb,ckab->ijkc", gp, gp, g).reshape(16, 4, 2)  # G' g G'^T
    assert np.array_equal(u, want) and np.array_equal(bound[:, 0], np.abs(want).max(axis=1))
