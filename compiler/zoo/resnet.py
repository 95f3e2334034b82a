"""ResNet-18 and ResNet-50 (torchvision topology) with synthetic weights, any resolution."""

from __future__ import annotations

from ..frontend.builder import GraphBuilder
from .params import ParamGen

RESIDUAL_GAMMA = 0.25  # last BN of each residual branch: keeps x + f(x) from doubling


def _conv_bn(b: GraphBuilder, p: ParamGen, x, cout: int, k: int, stride: int, name: str,
             relu: bool = True, gamma_scale: float = 1.0):
    cin = x.shape[1]
    y = b.conv2d(x, p.conv(cout, cin, k), stride=stride, pad=k // 2, name=f"{name}.conv")
    y = b.batch_norm(y, *p.bn(cout, gamma_scale), name=f"{name}.bn")
    return b.relu(y, name=f"{name}.relu") if relu else y


def _basic(b, p, x, planes: int, stride: int, name: str):
    y = _conv_bn(b, p, x, planes, 3, stride, f"{name}.1")
    y = _conv_bn(b, p, y, planes, 3, 1, f"{name}.2", relu=False, gamma_scale=RESIDUAL_GAMMA)
    return _join(b, p, x, y, planes, stride, name)


def _bottleneck(b, p, x, planes: int, stride: int, name: str):
    y = _conv_bn(b, p, x, planes, 1, 1, f"{name}.1")
    y = _conv_bn(b, p, y, planes, 3, stride, f"{name}.2")
    y = _conv_bn(b, p, y, planes * 4, 1, 1, f"{name}.3", relu=False,
                 gamma_scale=RESIDUAL_GAMMA)
    return _join(b, p, x, y, planes * 4, stride, name)


def _join(b, p, x, y, cout: int, stride: int, name: str):
    if stride != 1 or x.shape[1] != cout:
        x = _conv_bn(b, p, x, cout, 1, stride, f"{name}.down", relu=False)
    return b.relu(b.add(y, x, name=f"{name}.add"), name=f"{name}.out")


def _resnet(name: str, block, layers, resolution: int, num_classes: int, batch: int,
            seed: int, width: int):
    b, p = GraphBuilder(name), ParamGen(seed, deferrable=True)
    x = b.input("input", (batch, 3, resolution, resolution))
    y = _conv_bn(b, p, x, width, 7, 2, "stem")
    y = b.max_pool2d(y, 3, stride=2, pad=1, name="stem.pool")
    for i, blocks in enumerate(layers):
        planes = width * 2 ** i
        for j in range(blocks):
            y = block(b, p, y, planes, 2 if (j == 0 and i > 0) else 1, f"layer{i + 1}.{j}")
    y = b.flatten(b.global_avg_pool2d(y, name="avgpool"), name="flatten")
    w, bias = p.dense(y.shape[1], num_classes)
    return b.build(b.dense(y, w, bias, name="fc"))


def resnet18(resolution: int = 224, num_classes: int = 1000, batch: int = 1, seed: int = 0,
             width: int = 64):
    """ResNet-18: basic blocks [2, 2, 2, 2]; 1.8 GMACs at 224x224."""
    return _resnet("resnet18", _basic, (2, 2, 2, 2), resolution, num_classes, batch, seed,
                   width)


def resnet50(resolution: int = 224, num_classes: int = 1000, batch: int = 1, seed: int = 0,
             width: int = 64):
    """ResNet-50: bottleneck blocks [3, 4, 6, 3]; 4.1 GMACs at 224x224."""
    return _resnet("resnet50", _bottleneck, (3, 4, 6, 3), resolution, num_classes, batch, seed,
                   width)
