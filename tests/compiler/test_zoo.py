"""Model zoo: names, parameters, determinism, and full-size shape inference."""

import numpy as np
import pytest

from compiler import zoo
from compiler.errors import ZooError
from compiler.passes import PassManager


def test_list_and_unknown_names():
    assert zoo.list() == ["bert-tiny", "gpt2", "mlp", "mobilenetv2", "resnet18", "resnet50",
                          "small_cnn", "vit-tiny"]
    with pytest.raises(ZooError, match="unknown model 'resnet-18'; did you mean 'resnet18'"):
        zoo.get("resnet-18")
    with pytest.raises(ZooError, match="no parameter 'resolutoin'; did you mean 'resolution'"):
        zoo.get("resnet18", resolutoin=32)
    with pytest.raises(ZooError, match="needs resolution >= 16"):
        zoo.get("mobilenetv2", resolution=8)


def test_weights_are_deterministic_per_seed():
    a, b, c = (zoo.get("small_cnn", seed=s) for s in (0, 0, 1))
    assert all(np.array_equal(a.constants[k], b.constants[k]) for k in a.constants)
    assert not np.array_equal(a.constants["conv1.weight"], c.constants["conv1.weight"])


def _macs(g):
    total = 0
    for n in g.nodes:
        if n.op == "nn.conv2d":
            kh, kw = g.type_of(n.inputs[1]).shape[2:]
            cin_g = g.type_of(n.inputs[1]).shape[1]
            total += g.type_of(n.output).numel * kh * kw * cin_g
        elif n.op == "nn.dense":
            total += g.type_of(n.output).numel * g.type_of(n.inputs[1]).shape[0]
    return total


@pytest.mark.parametrize("name,macs,params", [
    ("resnet18", 1_814_073_344, 11_689_512),
    ("resnet50", 4_089_184_256, 25_557_032),
    ("mobilenetv2", 300_774_272, 3_504_872),
])
def test_imagenet_models_at_224_match_published_sizes(name, macs, params):
    g = zoo.get(name)
    assert g.type_of(g.outputs[0]).shape == (1, 1000)
    n_params = sum(a.size for k, a in g.constants.items() if not k.endswith((".mean", ".var")))
    assert n_params == params  # torchvision's parameter counts
    assert _macs(g) == macs


def test_resnet50_224_through_shape_passes():
    g = PassManager.from_string("simplify, fold-constants, fold-bn, convert-layout, fuse").run(
        zoo.get("resnet50"))
    assert g.ops() == {"layout_transform": 1, "fused.conv2d": 53, "nn.max_pool2d": 1,
                       "nn.global_avg_pool2d": 1, "flatten": 1, "fused.dense": 1}
    assert g.type_of("layer4.2.out").shape == (1, 7, 7, 2048)  # NHWC after layout
