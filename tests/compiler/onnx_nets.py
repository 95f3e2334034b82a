"""Small networks of each CNN family, built with onnx.helper in the form real exporters write
them (ONNX model zoo, PyTorch, TensorFlow): the fixtures of test_onnx_families.py."""

from __future__ import annotations

from functools import partial

import numpy as np
from onnx import TensorProto, helper, numpy_helper


class Net:
    """Accumulates nodes and initializers; conv/bn helpers name values uniquely."""

    def __init__(self, seed: int = 0, opset: int = 13):
        self.nodes, self.inits, self.k, self.opset = [], [], 0, opset
        self.r = np.random.default_rng(seed)

    def name(self, base: str) -> str:
        self.k += 1
        return f"{base}{self.k}"

    def const(self, array, base: str = "c") -> str:
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def node(self, op: str, inputs, n_out: int = 1, **attrs):
        outs = [self.name(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=self.name(op), **attrs))
        return outs[0] if n_out == 1 else outs

    def conv(self, x, cin, cout, k=3, stride=1, group=1, bias=True, pad=None, **kw):
        fan = cin // group * k * k
        w = self.const((self.r.standard_normal((cout, cin // group, k, k)) /
                        np.sqrt(fan)).astype(np.float32), "w")
        ins = [x, w] + ([self.const(self.r.uniform(-.1, .1, cout).astype(np.float32), "b")]
                        if bias else [])
        p = k // 2 if pad is None else pad
        return self.node("Conv", ins, kernel_shape=[k, k], strides=[stride, stride],
                         pads=[p, p, p, p], group=group, **kw)

    def bn(self, x, c):
        r = self.r
        return self.node("BatchNormalization", [
            x, self.const(r.uniform(.5, 1.5, c).astype(np.float32), "g"),
            self.const(r.uniform(-.2, .2, c).astype(np.float32), "be"),
            self.const(r.uniform(-.1, .1, c).astype(np.float32), "mu"),
            self.const(r.uniform(.5, 1.5, c).astype(np.float32), "var")], epsilon=1e-5)

    def gemm(self, x, fin, fout, **kw):
        w = self.const((self.r.standard_normal((fout, fin)) / np.sqrt(fin)).astype(np.float32))
        b = self.const(self.r.uniform(-.1, .1, fout).astype(np.float32))
        return self.node("Gemm", [x, w, b], transB=1, **kw)

    def model(self, x_shape, y, opset: int, inits_as_inputs: bool = False, ir: int = 7,
              y_shape=None):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))
        self.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
        yv = helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)
        inputs = [x] + ([helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                         for t in self.inits] if inits_as_inputs else [])
        g = helper.make_graph(self.nodes, "net", inputs, [yv], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = ir
        import onnx
        return onnx.shape_inference.infer_shapes(m)


def flatten_by_shape(n: Net, x):
    """PyTorch's x.view(x.size(0), -1): Shape, Gather, Unsqueeze, Concat, Reshape."""
    s = n.node("Shape", [x])
    zero = n.node("Constant", [], value=numpy_helper.from_array(np.array(0, np.int64)))
    b = n.node("Gather", [s, zero], axis=0)
    u = n.node("Unsqueeze", [b], axes=[0])
    minus1 = n.node("Constant", [], value_ints=[-1]) if n.opset >= 12 else \
        n.node("Constant", [], value=numpy_helper.from_array(np.array([-1], np.int64)))
    cat = n.node("Concat", [u, minus1], axis=0)
    return n.node("Reshape", [x, cat])


def resnet_v1(opset: int = 9):
    """ResNet-50 v1 as the ONNX model zoo ships it: Sum for the residual, initializers also
    listed as graph inputs, shape-computed flatten, Gemm, Softmax."""
    n = Net(1, opset)
    x = n.node("Relu", [n.bn(n.conv("x", 3, 8, 3, stride=2, bias=False), 8)])
    x = n.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    for cin, mid, cout, stride in ((8, 4, 16, 1), (16, 8, 16, 1)):
        h = n.node("Relu", [n.bn(n.conv(x, cin, mid, 1, bias=False), mid)])
        h = n.node("Relu", [n.bn(n.conv(h, mid, mid, 3, stride, bias=False), mid)])
        h = n.bn(n.conv(h, mid, cout, 1, bias=False), cout)
        sc = n.bn(n.conv(x, cin, cout, 1, stride, bias=False), cout) if cin != cout else x
        x = n.node("Relu", [n.node("Sum", [h, sc])])
    x = n.node("GlobalAveragePool", [x])
    x = flatten_by_shape(n, x)
    return n.model((1, 3, 16, 16), n.node("Softmax", [n.gemm(x, 16, 10)], axis=1), opset,
                   inits_as_inputs=True, ir=3, y_shape=[1, 10])


def squeezenet(opset: int = 10):
    """SqueezeNet 1.1: fire modules (squeeze, expand 1x1 + 3x3, Concat), MaxPool ceil_mode,
    Dropout whose mask output nobody reads, a conv classifier, GAP, Flatten, Softmax."""
    n = Net(2)
    x = n.node("Relu", [n.conv("x", 3, 8, 3, stride=2, pad=0)])
    x = n.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    for cin, sq, ex in ((8, 4, 8), (16, 4, 8)):
        s = n.node("Relu", [n.conv(x, cin, sq, 1)])
        x = n.node("Concat", [n.node("Relu", [n.conv(s, sq, ex, 1)]),
                              n.node("Relu", [n.conv(s, sq, ex, 3)])], axis=1)
    x = n.node("Dropout", [x], n_out=2, ratio=0.5)[0]
    x = n.node("Relu", [n.conv(x, 16, 10, 1)])
    x = n.node("Flatten", [n.node("GlobalAveragePool", [x])], axis=1)
    return n.model((1, 3, 23, 23), n.node("Softmax", [x], axis=1), opset)


def vgg_alexnet(opset: int = 7):
    """VGG/AlexNet: Conv+Relu stacks, LRN, MaxPool, Flatten, Gemm + Dropout (mask output),
    Gemm, Softmax (opset 7: Dropout has an is_test-free mask output)."""
    n = Net(3)
    x = n.node("Relu", [n.conv("x", 3, 8, 3)])
    x = n.node("LRN", [x], size=5, alpha=1e-4, beta=0.75, bias=1.0)
    x = n.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = n.node("Relu", [n.conv(x, 8, 8, 3)])
    x = n.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = n.node("Flatten", [x], axis=1)
    x = n.node("Dropout", [n.node("Relu", [n.gemm(x, 8 * 4 * 4, 16)])], n_out=2)[0]
    return n.model((1, 3, 16, 16), n.node("Softmax", [n.gemm(x, 16, 10)], axis=1), opset)


def inception_densenet(opset: int = 11):
    """Inception branches (1x1, 3x3, 5x5 via Pad input + conv, 3x3 average pool whose padding
    is left out of the count, as Inception's and ShuffleNet's are)
    concatenated on channels, then a DenseNet block: BN-Relu-Conv whose output is
    concatenated with its input."""
    n = Net(4)
    x = n.node("Relu", [n.conv("x", 3, 8, 3)])
    b1 = n.node("Relu", [n.conv(x, 8, 4, 1)])
    b2 = n.node("Relu", [n.conv(n.node("Relu", [n.conv(x, 8, 4, 1)]), 4, 4, 3)])
    p = n.node("Pad", [x, n.const(np.array([0, 0, 2, 2, 0, 0, 2, 2], np.int64), "pads")])
    b3 = n.node("Relu", [n.conv(p, 8, 4, 5, pad=0)])
    b4 = n.node("AveragePool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1])  # pads not counted
    x = n.node("Concat", [b1, b2, b3, n.conv(b4, 8, 4, 1)], axis=1)
    h = n.conv(n.node("Relu", [n.bn(x, 16)]), 16, 8, 3, bias=False)
    x = n.node("Concat", [x, h], axis=1)
    x = n.node("Relu", [n.bn(x, 24)])
    x = n.node("Flatten", [n.node("GlobalAveragePool", [x])])
    return n.model((1, 3, 12, 12), n.gemm(x, 24, 10), opset)


def shufflenet(opset: int = 13):
    """ShuffleNet v2: Split (sizes as input, opset 13), grouped and depthwise convs,
    channel shuffle as Reshape-Transpose-Reshape, Concat."""
    n = Net(5)
    x = n.node("Relu", [n.conv("x", 3, 8, 3, stride=2)])
    x = n.node("Relu", [n.conv(x, 8, 16, 1, group=2)])
    a, b = n.node("Split", [x, n.const(np.array([8, 8], np.int64), "split")], n_out=2, axis=1)
    b = n.node("Relu", [n.bn(n.conv(b, 8, 8, 1, bias=False), 8)])
    b = n.bn(n.conv(b, 8, 8, 3, group=8, bias=False), 8)
    b = n.node("Relu", [n.conv(b, 8, 8, 1)])
    x = n.node("Concat", [a, b], axis=1)
    x = n.node("Reshape", [x, n.const(np.array([1, 2, 8, 8, 8], np.int64), "s5")])
    x = n.node("Transpose", [x], perm=[0, 2, 1, 3, 4])
    x = n.node("Reshape", [x, n.const(np.array([1, 16, 8, 8], np.int64), "s4")])
    x = n.node("Relu", [n.conv(x, 16, 8, 3)])
    x = n.node("Flatten", [n.node("GlobalAveragePool", [x])])
    return n.model((1, 3, 16, 16), n.gemm(x, 8, 10), opset)


def mobilenet_v3(opset: int = 14):
    """MobileNetV3 / EfficientNet blocks as PyTorch exports them: HardSwish, depthwise conv,
    squeeze-excitation (ReduceMean keepdims, 1x1 convs, Relu, HardSigmoid, Mul broadcast),
    SiLU as x*Sigmoid(x), Clip with min/max inputs (ReLU6), LeakyRelu, PRelu, residual Add,
    broadcasting constant Add/Div."""
    n = Net(6)
    x = n.node("HardSwish", [n.bn(n.conv("x", 3, 8, 3, stride=2, bias=False), 8)])
    h = n.node("Clip", [n.conv(x, 8, 16, 1), n.const(np.array(0, np.float32), "lo"),
                        n.const(np.array(6, np.float32), "hi")])
    h = n.bn(n.conv(h, 16, 16, 3, group=16, bias=False), 16)
    h = n.node("Mul", [h, n.node("Sigmoid", [h])])                       # SiLU
    s = n.node("ReduceMean", [h], axes=[2, 3], keepdims=1)
    s = n.node("Relu", [n.conv(s, 16, 4, 1)])
    s = n.node("HardSigmoid", [n.conv(s, 4, 16, 1)], alpha=1 / 6, beta=0.5)
    h = n.node("Mul", [h, s])                                            # SE gate
    h = n.conv(h, 16, 8, 1)
    x = n.node("Add", [h, x])
    x = n.node("LeakyRelu", [x], alpha=0.1)
    x = n.node("PRelu", [n.conv(x, 8, 8, 3), n.const(
        np.linspace(0.1, 0.3, 8, dtype=np.float32).reshape(8, 1, 1), "slope")])
    x = n.node("Div", [n.node("Add", [x, n.const(np.array(3.0, np.float32))]),
                       n.const(np.array(6.0, np.float32))])
    x = n.node("Flatten", [n.node("GlobalAveragePool", [x])])
    return n.model((1, 3, 16, 16), n.gemm(x, 8, 10), opset)


def unet_fpn(opset: int = 13):
    """A small U-Net/FPN decoder: encoder convs and max pools; decoder upsampling by Resize
    nearest as PyTorch exports it (asymmetric, floor), by ConvTranspose (kernel 2, stride 2)
    and by bilinear Resize (pytorch_half_pixel) for a side output; skips concatenated on
    channels and added; Squeeze/Unsqueeze (axes inputs)."""
    n = Net(7)
    e1 = n.node("Relu", [n.conv("x", 3, 8, 3)])
    e2 = n.node("Relu", [n.conv(n.node("MaxPool", [e1], kernel_shape=[2, 2], strides=[2, 2]),
                                8, 8, 3)])
    e3 = n.node("Relu", [n.conv(n.node("MaxPool", [e2], kernel_shape=[2, 2], strides=[2, 2]),
                                8, 8, 3)])
    empty = n.const(np.zeros(0, np.float32), "roi")
    u = n.node("Resize", [e3, empty, n.const(np.array([1, 1, 2, 2], np.float32), "sc")],
               mode="nearest", coordinate_transformation_mode="asymmetric",
               nearest_mode="floor")
    d2 = n.node("Relu", [n.conv(n.node("Concat", [u, e2], axis=1), 16, 8, 3)])
    wt = n.const((n.r.standard_normal((8, 8, 2, 2)) / 4).astype(np.float32), "wt")
    u = n.node("ConvTranspose", [d2, wt, n.const(np.zeros(8, np.float32), "bt")],
               kernel_shape=[2, 2], strides=[2, 2])
    d1 = n.node("Relu", [n.conv(n.node("Add", [u, e1]), 8, 4, 3)])
    side = n.node("Resize", [n.conv(d2, 8, 1, 1), empty,
                             n.const(np.array([1, 1, 2, 2], np.float32), "sc")],
                  mode="linear", coordinate_transformation_mode="pytorch_half_pixel")
    y = n.node("Add", [n.conv(d1, 4, 1, 1), side])
    y = n.node("Squeeze", [y, n.const(np.array([1], np.int64), "ax")])
    y = n.node("Unsqueeze", [y, n.const(np.array([1], np.int64), "ax")])
    return n.model((1, 3, 16, 16), n.node("Sigmoid", [y]), opset)


def tf2onnx_mobilenet(opset: int = 13):
    """A Keras MobileNetV2 block as tf2onnx writes it: an NHWC input transposed to NCHW, ReLU6
    as Clip with min/max inputs, a depthwise conv, a residual Add, ReduceMean with keepdims=0
    for the global pool, MatMul + Add instead of Gemm, Softmax over axis -1."""
    n = Net(8, opset)
    relu6 = (n.const(np.array(0, np.float32), "lo"), n.const(np.array(6, np.float32), "hi"))
    x = n.node("Transpose", ["x"], perm=[0, 3, 1, 2])
    x = n.node("Clip", [n.conv(x, 3, 16, 3, stride=2), *relu6])
    h = n.node("Clip", [n.conv(x, 16, 16, 3, group=16), *relu6])
    x = n.node("Add", [x, n.conv(h, 16, 16, 1)])
    x = n.node("ReduceMean", [x], axes=[2, 3], keepdims=0)
    x = n.node("MatMul", [x, n.const((n.r.standard_normal((16, 10)) / 4).astype(np.float32))])
    x = n.node("Add", [x, n.const(n.r.uniform(-.1, .1, 10).astype(np.float32))])
    return n.model((1, 32, 32, 3), n.node("Softmax", [x], axis=-1), opset, y_shape=[1, 10])


def opset_forms(opset: int):
    """The forms that moved between opsets, each written as a model of `opset` writes it:
    Clip min/max (attributes before 11, inputs from 11), Pad pads (attribute before 11),
    Split sizes (attribute before 13, input from 13, num_outputs from 18), Upsample (7: scales
    attribute, 9: input) or Resize (10: scales, 11+: roi, scales), ReduceMean axes (input
    from 18), Squeeze axes (input from 13); a Sub of a constant and a Gemm with alpha/beta."""
    n = Net(9, opset)
    f32 = np.float32
    x = n.node("Relu", [n.bn(n.conv("x", 3, 8, 3, bias=False), 8)])
    x = n.node("Clip", [x], min=0.0, max=6.0) if opset < 11 else \
        n.node("Clip", [x, n.const(np.array(0, f32)), n.const(np.array(6, f32))])
    pads = [0, 0, 1, 1, 0, 0, 1, 1]
    x = n.node("Pad", [x], pads=pads) if opset < 11 else \
        n.node("Pad", [x, n.const(np.array(pads, np.int64), "pads")])
    x = n.conv(x, 8, 8, 3, pad=0)
    if opset < 13:
        a, b = n.node("Split", [x], n_out=2, axis=1, split=[4, 4])
    elif opset < 18:
        a, b = n.node("Split", [x, n.const(np.array([4, 4], np.int64), "split")], n_out=2,
                      axis=1)
    else:
        a, b = n.node("Split", [x], n_out=2, axis=1, num_outputs=2)
    x = n.node("Concat", [b, a], axis=1)
    scales = n.const(np.array([1, 1, 2, 2], f32), "sc")
    if opset < 9:
        x = n.node("Upsample", [x], scales=[1.0, 1.0, 2.0, 2.0], mode="nearest")
    elif opset < 10:
        x = n.node("Upsample", [x, scales], mode="nearest")
    elif opset < 11:
        x = n.node("Resize", [x, scales], mode="nearest")
    else:
        x = n.node("Resize", [x, n.const(np.zeros(0, f32), "roi"), scales], mode="nearest")
    x = n.node("Sub", [n.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2]),
                       n.const(np.linspace(-.2, .2, 8, dtype=f32).reshape(8, 1, 1))])
    s = n.node("ReduceMean", [x], axes=[2, 3], keepdims=1) if opset < 18 else \
        n.node("ReduceMean", [x, n.const(np.array([2, 3], np.int64), "axes")], keepdims=1)
    x = n.node("Mul", [x, n.node("Sigmoid", [n.conv(s, 8, 8, 1)])])
    x = n.node("GlobalAveragePool", [x])
    x = n.node("Squeeze", [x], axes=[2, 3]) if opset < 13 else \
        n.node("Squeeze", [x, n.const(np.array([2, 3], np.int64), "axes")])
    x = n.gemm(x, 8, 10, alpha=0.5, beta=2.0)
    return n.model((1, 3, 16, 16), n.node("Softmax", [x], axis=1), opset, y_shape=[1, 10])


FAMILIES = {"resnet50_v1_zoo": resnet_v1, "squeezenet_fire": squeezenet,
            "vgg_alexnet_lrn": vgg_alexnet, "inception_densenet": inception_densenet,
            "shufflenet": shufflenet, "mobilenet_v3_se": mobilenet_v3, "unet_fpn": unet_fpn,
            "tf2onnx_mobilenet_v2": tf2onnx_mobilenet,
            **{f"opset{v}_forms": partial(opset_forms, v) for v in (7, 9, 10, 11, 13, 18, 21)}}
