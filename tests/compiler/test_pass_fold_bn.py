"""fold-bn: batch norm folded into conv/dense weights, or turned into a depthwise conv."""

import numpy as np
import pytest

from compiler.frontend import GraphBuilder
from compiler.ops.nn import batch_norm_scale_shift
from compiler.passes import PassManager
from compiler.reference import run_float


def _bn_params(rng, c):
    return (rng.uniform(0.5, 2, c).astype(np.float32), rng.normal(0, 1, c).astype(np.float32),
            rng.normal(0, 1, c).astype(np.float32), rng.uniform(0.5, 2, c).astype(np.float32))


@pytest.mark.parametrize("with_bias", [False, True])
def test_conv_bn_folds_exactly(rng, with_bias):
    b = GraphBuilder("f")
    x = b.input("x", (1, 3, 6, 6))
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32) if with_bias else None
    params = _bn_params(rng, 4)
    y = b.batch_norm(b.conv2d(x, w, bias, pad=1, name="c"), *params, eps=1e-3, name="bn")
    g0 = b.build(b.relu(y, name="out"))
    g = PassManager.from_string("fold-bn").run(g0)
    assert g.ops() == {"nn.conv2d": 1, "nn.bias_add": 1, "nn.relu": 1}
    scale, shift = batch_norm_scale_shift(*params, 1e-3)
    conv, badd = g.nodes[0], g.nodes[1]
    np.testing.assert_allclose(g.constants[conv.inputs[1]],
                               w * scale[:, None, None, None], rtol=1e-6)
    assert badd.output == "bn"  # the folded bias_add takes the batch norm's name
    np.testing.assert_allclose(g.constants[badd.inputs[1]],
                               (bias if with_bias else 0) * scale + shift, rtol=1e-5, atol=1e-6)
    feed = {"x": rng.standard_normal((1, 3, 6, 6)).astype(np.float32)}
    np.testing.assert_allclose(run_float(g, feed)["out"], run_float(g0, feed)["out"],
                               rtol=1e-5, atol=1e-5)


def test_dense_bn_folds_and_standalone_bn_becomes_depthwise(rng):
    b = GraphBuilder("f")
    x = b.input("x", (1, 2, 3, 3))
    y = b.batch_norm(x, *_bn_params(rng, 2), name="bn0")        # nothing to fold into
    y = b.flatten(y)
    y = b.batch_norm(b.dense(y, rng.standard_normal((18, 5)), name="fc"), *_bn_params(rng, 5),
                     axis=1, name="bn1")
    g0 = b.build(y)
    g = PassManager.from_string("fold-bn").run(g0)
    assert g.ops() == {"nn.conv2d": 1, "nn.bias_add": 2, "flatten": 1, "nn.dense": 1}
    dw = next(n for n in g.nodes if n.op == "nn.conv2d")
    assert dw.attrs["groups"] == 2 and g.type_of(dw.inputs[1]).shape == (2, 1, 1, 1)
    feed = {"x": rng.standard_normal((1, 2, 3, 3)).astype(np.float32)}
    np.testing.assert_allclose(run_float(g, feed)["bn1"], run_float(g0, feed)["bn1"],
                               rtol=1e-5, atol=1e-5)
    kept = PassManager.from_string("fold-bn(standalone=keep)").run(g0)
    assert kept.ops()["nn.batch_norm"] == 1


def test_bn_not_folded_when_conv_output_has_other_readers(rng):
    b = GraphBuilder("f")
    x = b.input("x", (1, 2, 4, 4))
    c = b.conv2d(x, rng.standard_normal((2, 2, 1, 1)), name="c")
    y = b.add(b.batch_norm(c, *_bn_params(rng, 2), name="bn"), c)
    g = PassManager.from_string("fold-bn(standalone=keep)").run(b.build(y))
    assert g.ops()["nn.batch_norm"] == 1
