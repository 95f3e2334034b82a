"""Op registry: shape inference, attribute checks, float semantics, exact integer semantics."""

import itertools

import numpy as np
import pytest

from compiler.errors import OpError
from compiler.ir import TensorType
from compiler.ops import get_op, list_ops


def infer(op, types, **attrs):
    d = get_op(op)
    return d.infer_type(types, d.normalize_attrs(attrs))


def compute(op, arrays, **attrs):
    d = get_op(op)
    return d.compute(arrays, d.normalize_attrs(attrs))


def naive_conv_nchw(x, w, stride, pads, dil, groups):
    """Six nested loops, independent of the vectorized kernel."""
    n, c, h, wd = x.shape
    cout, cin_g, kh, kw = w.shape
    top, left, bottom, right = pads
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    oh = (h + top + bottom - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + left + right - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, cout, oh, ow), np.float64)
    cout_g = cout // groups
    for b, o, i, j in itertools.product(range(n), range(cout), range(oh), range(ow)):
        g = o // cout_g
        for ci, p, q in itertools.product(range(cin_g), range(kh), range(kw)):
            out[b, o, i, j] += xp[b, g * cin_g + ci, i * stride[0] + p * dil[0],
                                  j * stride[1] + q * dil[1]] * w[o, ci, p, q]
    return out


def test_every_listed_op_is_documented_and_typed():
    for name in list_ops():
        op = get_op(name)
        assert op.doc and callable(op.infer) and callable(op.compute), name


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_conv2d_shape_inference(layout):
    x = TensorType((2, 8, 15, 11) if layout == "NCHW" else (2, 15, 11, 8))
    w = TensorType((6, 4, 3, 3))  # groups=2: 4 input channels per group
    out = infer("nn.conv2d", [x, w], strides=(2, 1), pads=(1, 0, 1, 2), dilations=(1, 2),
                groups=2, layout=layout)
    # h: (15 + 2 - 3) // 2 + 1 = 8; w: (11 + 2 - 5) // 1 + 1 = 9
    assert out.shape == ((2, 6, 8, 9) if layout == "NCHW" else (2, 8, 9, 6))


@pytest.mark.parametrize("w_shape,attrs,msg", [
    ((6, 3, 3, 3), {"groups": 2}, "expect 3 input channels per group.*8 channels / groups 2"),
    ((5, 4, 3, 3), {"groups": 2}, r"groups=2 must divide input channels \(8\) and output "
                                  r"channels \(5\)"),
    ((6, 8, 9, 9), {}, "leaves no output from a 5x5 input"),
])
def test_conv2d_shape_errors(w_shape, attrs, msg):
    with pytest.raises(OpError, match=msg):
        infer("nn.conv2d", [TensorType((1, 8, 5, 5)), TensorType(w_shape)], **attrs)


def test_attribute_validation_messages():
    op = get_op("nn.conv2d")
    with pytest.raises(OpError, match="'strides' needs 2 values, got 3"):
        op.normalize_attrs({"strides": (1, 1, 1)})
    with pytest.raises(OpError, match="'groups' = 0 must be >= 1"):
        op.normalize_attrs({"groups": 0})
    with pytest.raises(OpError, match="'layout' = 'NWHC' is not one of NCHW, NHWC"):
        op.normalize_attrs({"layout": "NWHC"})
    with pytest.raises(OpError, match="needs attribute 'kernel'"):
        get_op("nn.max_pool2d").normalize_attrs({})
    with pytest.raises(OpError, match="takes 2 inputs"):
        get_op("add").infer_type([TensorType((1,))], {})


@pytest.mark.parametrize("groups,stride,pads,dil", [
    (1, (1, 1), (1, 1, 1, 1), (1, 1)),
    (2, (2, 1), (0, 1, 2, 0), (1, 2)),
    (4, (1, 2), (1, 0, 0, 1), (2, 1)),  # depthwise
])
def test_conv2d_float_matches_naive_loops(rng, groups, stride, pads, dil):
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = rng.standard_normal((4, 4 // groups, 3, 2)).astype(np.float32)
    want = naive_conv_nchw(x, w, stride, pads, dil, groups)
    got = compute("nn.conv2d", [x, w], strides=stride, pads=pads, dilations=dil, groups=groups)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    nhwc = compute("nn.conv2d", [x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0)],
                   strides=stride, pads=pads, dilations=dil, groups=groups, layout="NHWC",
                   kernel_layout="HWIO")
    np.testing.assert_allclose(nhwc, want.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)


def test_pooling_borders():
    x = -np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    # max: padding never wins even though every real value is negative
    mx = compute("nn.max_pool2d", [x], kernel=(3, 3), strides=(2, 2), pads=(1, 1, 1, 1))
    assert mx[0, 0].tolist() == [[-1.0, -2.0], [-5.0, -6.0]]
    # avg without counting the pad: the top-left window holds 1, 2, 5, 6 -> -3.5
    avg = compute("nn.avg_pool2d", [x], kernel=(3, 3), strides=(2, 2), pads=(1, 1, 1, 1))
    assert avg[0, 0, 0, 0] == pytest.approx(-3.5)
    inc = compute("nn.avg_pool2d", [x], kernel=(3, 3), strides=(2, 2), pads=(1, 1, 1, 1),
                  count_include_pad=True)
    assert inc[0, 0, 0, 0] == pytest.approx(-14 / 9)
    gap = compute("nn.global_avg_pool2d", [x])
    assert gap.shape == (1, 1, 1, 1) and gap.item() == pytest.approx(-8.5)


def test_elementwise_and_shape_ops():
    x = np.array([[-2.0, 0.5, 7.0]], np.float32)
    assert compute("clip", [x], min=0.0, max=6.0).tolist() == [[0.0, 0.5, 6.0]]
    assert compute("nn.softmax", [x]).sum() == pytest.approx(1.0)
    assert compute("sigmoid", [np.array([0.0, -1000.0], np.float32)]).tolist() == [0.5, 0.0]
    bn = compute("nn.batch_norm", [np.ones((1, 2, 1, 1), np.float32)] +
                 [np.array(v, np.float32) for v in ([2, 3], [1, 1], [0, 1], [3, 0])],
                 epsilon=1.0)
    assert bn.ravel().tolist() == [2 / 2 + 1, 0 + 1]  # (x - mean) / sqrt(var + eps) * g + b
    assert infer("flatten", [TensorType((2, 3, 4, 5))], axis=2).shape == (6, 20)
    assert infer("reshape", [TensorType((2, 3, 4))], shape=(-1, 4)).shape == (6, 4)
    with pytest.raises(OpError, match="needs 10 elements, the input has 24"):
        infer("reshape", [TensorType((2, 3, 4))], shape=(2, 5))
    with pytest.raises(OpError, match="does not match"):
        infer("concat", [TensorType((1, 2, 3)), TensorType((1, 2, 4))], axis=1)
    assert infer("layout_transform", [TensorType((1, 3, 5, 7))], src_layout="NCHW",
                 dst_layout="NHWC").shape == (1, 5, 7, 3)


# ---------------------------------------------------------------- integer semantics, by hand

def i8(*v):
    return np.array(v, np.int8)


def i32(*v):
    return np.array(v, np.int32)


def test_qnn_conv2d_epilogue_exact():
    # 1x1 conv, cin=2, cout=2: acc = [10*1 - 20*3, 10*2 - 20*4] = [-50, -60]
    x = i8(10, -20).reshape(1, 1, 1, 2)
    w = i8(1, 2, 3, 4).reshape(1, 1, 2, 2)
    bias = i32(5, 100)                     # -> [-45, 40]
    mult, shift = i32(2**30, 2**30), i32(31, 30)  # x0.5 and x1.0
    # requantize: -22.5 rounds half up to -22, then relu -> 0; 40 stays
    y = compute("qnn.conv2d", [x, w, bias, mult, shift], act="relu")
    assert y.ravel().tolist() == [0, 40] and y.dtype == np.int8
    # + residual [7, -3] with x1.0 / x0.5 (2^14, 2^13 at shift 14): [3.5, 38.5] -> [4, 39]
    y = compute("qnn.conv2d", [x, w, bias, mult, shift, i8(7, -3).reshape(1, 1, 1, 2)],
                act="relu", lhs_mult=2**14, rhs_mult=2**13, add_shift=14, post_act="clip",
                post_lo=0, post_hi=38)
    assert y.ravel().tolist() == [4, 38]


def test_qnn_conv2d_grouped_equals_per_channel_convs(rng):
    x = rng.integers(-128, 128, (1, 5, 5, 3)).astype(np.int8)
    w = rng.integers(-127, 128, (3, 3, 1, 3)).astype(np.int8)
    ones = np.full(3, 2**30, np.int32)
    args = [x, w, np.zeros(3, np.int32), ones, np.full(3, 30, np.int32)]
    # mult 2^30 >> 30 is x1: the int8 result is the saturated accumulator
    y = compute("qnn.conv2d", args, groups=3, pads=(1, 1, 1, 1))
    acc = naive_conv_nchw(x.transpose(0, 3, 1, 2).astype(np.float64),
                          w.transpose(3, 2, 0, 1).astype(np.float64), (1, 1), (1, 1, 1, 1),
                          (1, 1), 3)
    assert np.array_equal(y, np.clip(acc, -128, 127).transpose(0, 2, 3, 1).astype(np.int8))


def test_qnn_dense_saturates_and_rounds_half_up():
    x = i8(127, 127).reshape(1, 2)
    w = i8(127, -1, 127, 0).reshape(2, 2)   # acc = [32258, -127]
    y = compute("qnn.dense", [x, w, i32(0, 0), i32(2**30, 2**30), i32(30, 31)])
    assert y.ravel().tolist() == [127, -63]  # -63.5 rounds half up to -63


def test_qnn_pools_add_multiply_lut_concat_exact():
    x = i8(1, 2, 3, 4).reshape(1, 2, 2, 1)
    # sum 10, x0.25 (2^30 at shift 32) = 2.5 -> 3 (half up)
    assert compute("qnn.avg_pool2d", [x], kernel=(2, 2), strides=(2, 2), mult=2**30,
                   shift=32).item() == 3
    assert compute("qnn.global_avg_pool2d", [x], mult=2**30, shift=32).item() == 3
    assert compute("qnn.max_pool2d", [x], kernel=(2, 2), strides=(1, 1)).item() == 4
    a, b = i8(-3, 100), i8(0, 100)
    # (-3*1 + 0)/2 = -1.5 -> -1 ; (100 + 100)/2 = 100
    assert compute("qnn.add", [a, b], lhs_mult=1, rhs_mult=1, shift=1).tolist() == [-1, 100]
    assert compute("qnn.add", [a, b], lhs_mult=1, rhs_mult=1, shift=0, act="relu"
                   ).tolist() == [0, 127]
    assert compute("qnn.multiply", [a, b], mult=2**30, shift=31).tolist() == [0, 127]
    table = np.arange(256).astype(np.int8)   # table[i] = i - 256 for i >= 128
    assert compute("qnn.lut", [i8(-128, 0, 127), table]).tolist() == [0, -128, -1]
    cat = compute("qnn.concat", [i8(10, -10).reshape(1, 2), i8(10, 5).reshape(1, 2)], axis=1,
                  mults=(2**30, 2**30), shifts=(30, 31))
    assert cat.tolist() == [[10, -10, 5, 3]]  # second input halved: 2.5 -> 3
