"""simplify (identity/dropout removal) and fold-constants."""

import numpy as np

from compiler.frontend import GraphBuilder
from compiler.passes import PassManager
from compiler.reference import run_float


def test_simplify_removes_pass_through_nodes_and_keeps_output_names():
    b = GraphBuilder("s")
    x = b.input("x", (1, 4))
    y = b.dropout(b.identity(b.relu(x, name="r")), name="out")
    g = PassManager.from_string("simplify").run(b.build(y))
    assert g.ops() == {"nn.relu": 1} and g.outputs == ["out"]
    assert run_float(g, {"x": np.array([[-1, 2, -3, 4]], np.float32)})["out"].tolist() == \
        [[0, 2, 0, 4]]


def test_simplify_keeps_an_identity_between_input_and_output():
    b = GraphBuilder("s")
    x = b.input("x", (2,))
    g = PassManager.from_string("simplify").run(b.build(b.identity(x, name="y")))
    assert g.ops() == {"identity": 1}


def test_fold_constants_evaluates_constant_subgraphs():
    b = GraphBuilder("c")
    x = b.input("x", (1, 6))
    w = b.reshape(b.const(np.arange(12, dtype=np.float32), "w_flat"), (6, 2), name="w")
    scale = b.multiply(b.const(np.full((1, 2), 2.0, np.float32)),
                       b.const(np.full((1, 2), 3.0, np.float32)), name="scale")
    y = b.multiply(b.dense(x, w, name="fc"), scale, name="y")
    g0 = b.build(y)
    g = PassManager.from_string("fold-constants").run(g0)
    assert g.ops() == {"nn.dense": 1, "multiply": 1}
    assert set(g.constants) == {"w", "scale"}
    assert g.constants["w"].shape == (6, 2) and g.constants["scale"].tolist() == [[6.0, 6.0]]
    feed = {"x": np.ones((1, 6), np.float32)}
    assert run_float(g, feed)["y"].tolist() == run_float(g0, feed)["y"].tolist()
