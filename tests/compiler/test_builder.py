"""GraphBuilder: named parameters, eager type errors, operators, build() pruning."""

import numpy as np
import pytest

from compiler.errors import GraphError, OpError
from compiler.frontend import GraphBuilder
from compiler.reference import run_float


def test_builder_names_parameters_and_computes():
    b = GraphBuilder("net")
    x = b.input("x", (1, 2, 4, 4))
    y = b.conv2d(x, np.ones((3, 2, 1, 1)), b=np.array([0.0, 1.0, -1.0]), name="c1")
    z = b.relu(y) + b.const(np.full((1, 3, 4, 4), 0.5, np.float32))
    g = b.build(z)
    assert set(g.constants) == {"c1.weight", "c1.bias", "const"}
    assert g.constants["c1.weight"].dtype == np.float32  # float64 arrays become float32
    out = run_float(g, {"x": np.ones((1, 2, 4, 4), np.float32)})[g.outputs[0]]
    assert out[0, :, 0, 0].tolist() == [2.5, 3.5, 1.5]  # relu(2 + bias) + 0.5


def test_builder_reports_shape_errors_at_the_call():
    b = GraphBuilder()
    x = b.input("x", (1, 3, 8, 8))
    with pytest.raises(OpError, match=r"node 'conv' \(nn.conv2d\): weights .* expect 4 input "
                                      r"channels per group"):
        b.conv2d(x, np.ones((8, 4, 3, 3), np.float32))
    with pytest.raises(OpError, match="do not broadcast"):
        b.add(x, b.const(np.ones((2, 8), np.float32)))


def test_build_prunes_unused_and_rejects_foreign_values():
    b, other = GraphBuilder(), GraphBuilder()
    x = b.input("x", (2, 3))
    b.sigmoid(x)                        # dead branch
    y = b.dense(x, np.ones((3, 2)), name="fc")
    g = b.build(y)
    assert g.ops() == {"nn.dense": 1} and list(g.constants) == ["fc.weight"]
    with pytest.raises(GraphError, match="must be values of this builder"):
        b.build(other.input("q", (1,)))


def test_pad_and_stride_forms():
    b = GraphBuilder()
    x = b.input("x", (1, 1, 5, 5))
    w = np.ones((1, 1, 3, 3), np.float32)
    assert b.conv2d(x, w, pad=(1, 2)).shape == (1, 1, 5, 7)
    assert b.conv2d(x, w, pad=(0, 1, 2, 0), stride=(1, 2)).shape == (1, 1, 5, 2)
    assert b.max_pool2d(x, 2).shape == (1, 1, 2, 2)   # stride defaults to the kernel
    with pytest.raises(GraphError, match="pad"):
        b.conv2d(x, w, pad=(1, 2, 3))
