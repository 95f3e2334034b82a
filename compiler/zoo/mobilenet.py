"""MobileNetV2 (inverted residuals, depthwise convs, ReLU6) with synthetic weights."""

from __future__ import annotations

from ..frontend.builder import GraphBuilder
from .params import ParamGen

# (expansion t, channels c, repeats n, first stride s), from the MobileNetV2 paper.
CONFIG = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
          (6, 160, 3, 2), (6, 320, 1, 1))


def _divisible(v: float, divisor: int = 8) -> int:
    """Channel counts rounded to a multiple of 8, never below 90% of v (torchvision)."""
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


def _conv_bn(b, p, x, cout, k, stride, name, groups=1, act=True, gamma_scale=1.0):
    cin = x.shape[1]
    y = b.conv2d(x, p.conv(cout, cin // groups, k), stride=stride, pad=k // 2, groups=groups,
                 name=f"{name}.conv")
    y = b.batch_norm(y, *p.bn(cout, gamma_scale), name=f"{name}.bn")
    return b.relu6(y, name=f"{name}.relu6") if act else y


def mobilenetv2(resolution: int = 224, num_classes: int = 1000, width_mult: float = 1.0,
                batch: int = 1, seed: int = 0):
    """MobileNetV2: 17 inverted-residual blocks; 0.3 GMACs at 224x224, width 1.0."""
    b, p = GraphBuilder("mobilenetv2"), ParamGen(seed)
    x = b.input("input", (batch, 3, resolution, resolution))
    y = _conv_bn(b, p, x, _divisible(32 * width_mult), 3, 2, "stem")
    idx = 0
    for t, c, n, s in CONFIG:
        cout = _divisible(c * width_mult)
        for i in range(n):
            name, cin = f"block{idx}", y.shape[1]
            stride = s if i == 0 else 1
            h = y
            if t != 1:
                h = _conv_bn(b, p, h, cin * t, 1, 1, f"{name}.expand")
            h = _conv_bn(b, p, h, h.shape[1], 3, stride, f"{name}.dw", groups=h.shape[1])
            residual = stride == 1 and cin == cout
            h = _conv_bn(b, p, h, cout, 1, 1, f"{name}.project", act=False,
                         gamma_scale=0.25 if residual else 1.0)
            y = b.add(h, y, name=f"{name}.add") if residual else h
            idx += 1
    y = _conv_bn(b, p, y, _divisible(1280 * max(1.0, width_mult)), 1, 1, "head")
    y = b.flatten(b.global_avg_pool2d(y, name="avgpool"), name="flatten")
    y = b.dropout(y, 0.2, name="dropout")
    w, bias = p.dense(y.shape[1], num_classes)
    return b.build(b.dense(y, w, bias, name="classifier"))
