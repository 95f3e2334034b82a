"""Graph IR: tensor types, graph editing, the verifier's errors and the text printer."""

import numpy as np
import pytest

from compiler.errors import GraphError, OpError
from compiler.frontend import GraphBuilder
from compiler.ir import Graph, Node, TensorType, verify
from compiler.passes.infer import infer_types


def test_tensor_type_basics():
    t = TensorType((1, 3, 32, 32), "float32")
    assert (t.rank, t.numel, t.nbytes) == (4, 3072, 12288)
    assert str(t) == "Tensor[(1, 3, 32, 32), float32]"
    assert str(TensorType((5,), "int8")) == "Tensor[(5,), int8]"
    assert TensorType((2, 2), np.dtype("int32")).dtype == "int32"
    assert TensorType.of(np.zeros((2, 3), np.int8)) == TensorType((2, 3), "int8")


@pytest.mark.parametrize("shape,dtype,msg", [
    ((1, 0, 4), "float32", "dimension < 1"),
    (("a",), "float32", "not a tuple of integers"),
    ((1,), "float64", "dtype 'float64' is not supported"),
])
def test_tensor_type_rejects(shape, dtype, msg):
    with pytest.raises(GraphError, match=msg):
        TensorType(shape, dtype)


def _tiny():
    g = Graph("tiny")
    g.add_input("x", TensorType((1, 4)))
    g.add_constant("w", np.ones((4, 2), np.float32))
    g.add_node(Node("nn.dense", ["x", "w"], "y"))
    g.add_node(Node("nn.relu", ["y"], "z"))
    g.outputs = ["z"]
    return infer_types(g)


def test_verify_accepts_and_types_are_inferred():
    g = _tiny()
    verify(g)
    assert g.types["y"] == TensorType((1, 2))


def test_dangling_edge_is_named():
    g = _tiny()
    g.nodes[1].inputs = ["nope"]
    with pytest.raises(GraphError, match=r"node 'z' \(nn.relu\) reads 'nope'.*dangling"):
        verify(g)


def test_duplicate_definition_and_missing_output():
    g = _tiny()
    g.nodes.append(Node("nn.relu", ["y"], "z", name="z2"))
    g.outputs.append("ghost")
    with pytest.raises(GraphError) as e:
        verify(g)
    assert "value 'z' is defined 2 times" in str(e.value)
    assert "graph output 'ghost' is not produced" in str(e.value)


def test_cycle_is_reported_with_its_nodes():
    g = Graph("cyc")
    g.add_input("x", TensorType((2,)))
    g.add_node(Node("add", ["x", "b"], "a"))
    g.add_node(Node("nn.relu", ["a"], "b"))
    g.outputs = ["b"]
    with pytest.raises(GraphError, match=r"cycle: a -> b -> a|cycle: b -> a -> b"):
        verify(g)


def test_out_of_order_nodes_are_reported_and_sortable():
    g = _tiny()
    g.nodes.reverse()
    with pytest.raises(GraphError, match="before node 'y' produces it; call Graph.topo_sort"):
        verify(g)
    g.topo_sort()
    verify(g)


def test_type_mismatch_is_reported():
    g = _tiny()
    g.types["y"] = TensorType((1, 3))
    with pytest.raises(GraphError, match=r"'y' is recorded as Tensor\[\(1, 3\), float32\], but "
                                         r"its inputs give Tensor\[\(1, 2\), float32\]"):
        verify(g)


def test_shape_error_names_node_and_shapes():
    g = _tiny()
    g.constants["w"] = np.ones((5, 2), np.float32)
    g.types["w"] = TensorType((5, 2))
    with pytest.raises(GraphError,
                       match=r"node .y. \(nn.dense\).*has 4 features, w is Tensor\[\(5, 2\)"):
        verify(g)


def test_unknown_op_and_attribute_suggest_names():
    g = _tiny()
    g.nodes[1].op = "nn.rleu"
    with pytest.raises(GraphError, match="unknown op 'nn.rleu'; did you mean 'nn.relu'"):
        verify(g)
    b = GraphBuilder()
    x = b.input("x", (1, 3, 8, 8))
    with pytest.raises(OpError, match="no attribute 'stride'; did you mean 'strides'"):
        b.op("nn.max_pool2d", [x], kernel=(2, 2), stride=(2, 2))


def test_rename_prune_and_copy_are_independent():
    g = _tiny()
    g.add_constant("unused", np.zeros(3, np.float32))
    g.rename("y", "hidden")
    assert g.nodes[1].inputs == ["hidden"] and g.types["hidden"] == TensorType((1, 2))
    h = g.copy()
    h.nodes[0].attrs["junk"] = 1
    h.prune()
    assert "unused" not in h.constants and "unused" in g.constants
    assert "junk" not in g.nodes[0].attrs


def test_printer_is_relay_like():
    g = _tiny()
    assert str(g).splitlines() == [
        "def @tiny(%x: Tensor[(1, 4), float32]) -> (Tensor[(1, 2), float32]) {",
        "  %y = nn.dense(%x, @w) : Tensor[(1, 2), float32]",
        "  %z = nn.relu(%y) : Tensor[(1, 2), float32]",
        "  return %z",
        "}",
        "/* 1 constants, 8 elements (0.00 MiB; float32) */",
    ]


def test_printer_shows_only_non_default_attributes():
    b = GraphBuilder("p")
    x = b.input("x", (1, 3, 8, 8))
    y = b.conv2d(x, np.ones((4, 3, 3, 3), np.float32), stride=2, pad=1, name="c")
    text = str(b.build(y))
    assert "%c = nn.conv2d(%x, @c.weight, strides=[2, 2], pads=[1, 1, 1, 1]) : " \
           "Tensor[(1, 4, 4, 4), float32]" in text
    assert "groups" not in text and "dilations" not in text
