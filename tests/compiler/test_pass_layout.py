"""convert-layout: NHWC activations, HWIO weights, boundary transforms, flatten->dense rows."""

import numpy as np

from compiler import zoo
from compiler.frontend import GraphBuilder
from compiler.passes import PassManager
from compiler.reference import run_float

LAYOUT = PassManager.from_string("convert-layout")


def _same_outputs(g0, g, feed):
    a, b = run_float(g0, feed), run_float(g, feed)
    for k in g0.outputs:
        np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-5)


def test_small_cnn_goes_nhwc_and_folds_the_flatten_permutation(feed):
    g0 = zoo.get("small_cnn")
    g = LAYOUT.run(g0)
    convs = [n for n in g.nodes if n.op == "nn.conv2d"]
    assert all(n.attrs["layout"] == "NHWC" and n.attrs["kernel_layout"] == "HWIO"
               for n in convs)
    assert g.type_of(convs[0].inputs[1]).shape == (3, 3, 3, 16)     # (kh, kw, cin, cout)
    assert g.type_of(convs[0].output).shape == (1, 32, 32, 16)
    # one transform at the input; the NCHW flatten order lives in fc1's permuted rows
    assert g.ops()["layout_transform"] == 1 and g.nodes[0].op == "layout_transform"
    fc1 = g.node("fc1.matmul")
    w0, w = g0.constants[g0.node("fc1.matmul").inputs[1]], g.constants[fc1.inputs[1]]
    c, h, wd = 32, 8, 8
    assert np.array_equal(w[(2 * wd + 3) * c + 5], w0[5 * h * wd + 2 * wd + 3])  # c5,h2,w3
    _same_outputs(g0, g, feed(g0))


def test_axis_ops_constants_and_4d_outputs(rng, feed):
    b = GraphBuilder("l")
    x = b.input("x", (1, 2, 5, 5))
    c = b.conv2d(x, rng.standard_normal((3, 2, 3, 3)), pad=1, name="c")
    c = b.add(c, b.const(rng.standard_normal((1, 3, 1, 1)).astype(np.float32), "chan"))
    c = b.multiply(c, b.const(rng.standard_normal((5, 5)).astype(np.float32), "plane"))
    y = b.concat([c, b.max_pool2d(x, 1)], axis=1, name="cat")
    y = b.softmax(y, axis=1, name="out")
    g0 = b.build(y)
    g = LAYOUT.run(g0)
    cat = g.node("cat")
    assert cat.attrs["axis"] == 3 and g.node("out.nhwc").attrs["axis"] == 3
    assert g.outputs == ["out"] and g.type_of("out").shape == (1, 5, 5, 5)
    assert g.nodes[-1].op == "layout_transform"          # back to NCHW for the caller
    assert g.constants["chan.nhwc"].shape == (1, 1, 1, 3)
    assert g.constants["plane.nhwc"].shape == (1, 5, 5, 1)
    _same_outputs(g0, g, feed(g0))


def test_layout_sensitive_ops_get_a_transform_back(rng, feed):
    b = GraphBuilder("l")
    x = b.input("x", (1, 2, 4, 4))
    c = b.conv2d(x, rng.standard_normal((3, 2, 1, 1)), name="c")
    y = b.sigmoid(b.reshape(c, (1, 3, 16), name="r"), name="out")   # not a dense: no folding
    g0 = b.build(y)
    g = LAYOUT.run(g0)
    r = g.node("r")
    assert g.node(r.inputs[0]).op == "layout_transform"
    assert g.node(r.inputs[0]).attrs == {"src_layout": "NHWC", "dst_layout": "NCHW"}
    _same_outputs(g0, g, feed(g0))
