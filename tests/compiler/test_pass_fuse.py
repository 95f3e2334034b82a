"""fuse: conv/dense + bias + act (+ ready residual add + act) into one node."""

import numpy as np

from compiler import zoo
from compiler.frontend import GraphBuilder
from compiler.passes import PassManager
from compiler.reference import run_float

FUSE = PassManager.from_string("fuse")


def test_resnet_blocks_fuse_with_the_ready_residual(resnet18_32, feed):
    g = PassManager.from_string("fold-bn, convert-layout, fuse").run(resnet18_32)
    assert g.ops() == {"layout_transform": 1, "fused.conv2d": 20, "nn.max_pool2d": 1,
                       "nn.global_avg_pool2d": 1, "flatten": 1, "fused.dense": 1}
    # identity shortcut: the second conv of the block takes the block input as residual
    n = g.node("layer1.0.out")
    assert n.attrs["pattern"] == "conv2d+bias_add+add+relu"
    assert n.inputs[3] == "stem.pool" and n.attrs["post_act"] == "relu"
    assert n.attrs["pre_add"] == "layer1.0.2.bn"
    # downsampling block: the branch result is ready before the shortcut conv, so the add
    # fuses into the shortcut conv, and the branch's last conv stops at its bias
    n = g.node("layer2.0.out")
    assert n.name == "layer2.0.down.conv" and n.inputs[3] == "layer2.0.2.bn"
    assert g.node("layer2.0.2.bn").attrs["pattern"] == "conv2d+bias_add"
    np.testing.assert_allclose(run_float(g, feed(resnet18_32))["fc"],
                               run_float(resnet18_32, feed(resnet18_32))["fc"], rtol=1e-4,
                               atol=1e-4)


def test_mobilenet_fuses_relu6_and_linear_bottleneck_add():
    g = PassManager.from_string("fold-bn, fuse").run(zoo.get("mobilenetv2", resolution=32))
    dw = g.node("block1.dw.relu6")
    assert dw.attrs["act"] == "clip" and (dw.attrs["act_min"], dw.attrs["act_max"]) == (0, 6)
    assert dw.attrs["groups"] == 96
    add = g.node("block2.add")
    assert add.attrs["pattern"] == "conv2d+bias_add+add" and add.attrs["post_act"] == "none"


def test_no_fusion_across_a_shared_value_and_options(rng):
    b = GraphBuilder("f")
    x = b.input("x", (1, 4))
    h = b.dense(x, rng.standard_normal((4, 4)), np.ones(4), name="fc")
    y = b.add(b.relu(h, name="r"), h, name="y")   # h has two readers: relu and add
    g = FUSE.run(b.build(y))
    assert g.ops() == {"fused.dense": 1, "nn.relu": 1, "add": 1}
    assert g.node("fc").attrs["pattern"] == "dense+bias_add"
    b = GraphBuilder("f")
    x = b.input("x", (1, 4))
    y = b.add(b.dense(x, rng.standard_normal((4, 4)), name="fc"), x, name="y")
    assert PassManager.from_string("fuse(residual=false)").run(b.build(y)).ops() == \
        {"fused.dense": 1, "add": 1}
    fused = FUSE.run(b.build(y))
    assert fused.ops() == {"fused.dense": 1}
    assert fused.constants["fc.bias_zero"].tolist() == [0, 0, 0, 0]  # made for the epilogue
