"""fp16 programs of the table activations (compiler.lower.vecfn): the numpy model of each is
within the fp16 output's rounding of the exact function, the simulated NPU gives the model's
bits exactly, and ONNX files of each op agree with onnxruntime."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from compiler.errors import CompilerError
from compiler.ir.graph import Graph, Node
from compiler.ir.types import TensorType
from compiler.lower.program import lower
from compiler.lower.vecfn import FP16_OPS, VecFnLayer, evaluate, program
from compiler.ops.activation import TABLE_OPS
from compiler.ops.elementwise import sigmoid
from compiler.passes.infer import infer_types

FP16 = "npu-edge -dtype=fp16"
ATTRS = {"elu": {"alpha": 0.7}, "hardsigmoid": {"alpha": 0.25, "beta": 0.4},
         "leaky_relu": {"alpha": 0.1}, "gelu": {"approximate": "none"}}
ONNX = {"sigmoid": "Sigmoid", "tanh": "Tanh", "elu": "Elu", "hardswish": "HardSwish",
        "hardsigmoid": "HardSigmoid", "leaky_relu": "LeakyRelu", "gelu": "Gelu"}
OPSET = {"gelu": 20}  # Gelu is an opset-20 operator; the others exist at 17


def exact(op, x, attrs=None):
    x = x.astype(np.float64)
    attrs = ATTRS.get(op, {}) if attrs is None else attrs
    return sigmoid(x) if op == "sigmoid" else TABLE_OPS[op][0](x, attrs)


@pytest.mark.parametrize("op, attrs", [(op, None) for op in FP16_OPS] +
                         [("gelu", {"approximate": "tanh"})])
def test_model_is_within_the_fp16_rounding_of_the_function(op, attrs):
    x = np.concatenate([np.arange(-60000, 60000) / 2000.0, [0.0, -0.0, 1e-6, -1e-6]])
    x = x.astype(np.float16)
    attrs = ATTRS.get(op, {}) if attrs is None else attrs
    y = evaluate(program(op, attrs), x).astype(np.float64)
    f = exact(op, x, attrs)
    half_ulp = np.abs(f.astype(np.float16).astype(np.float64) - f)  # the output's rounding
    assert np.all(np.abs(y - f) <= half_ulp + 2e-5 * np.maximum(np.abs(f), 1) + 1e-7)


def _onnx(op, shape):
    a = ATTRS.get(op, {})
    node = helper.make_node(ONNX[op], ["x"], ["y"], **a)
    g = helper.make_graph([node], op, [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                     shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET.get(op, 17))])


@pytest.mark.parametrize("op", FP16_OPS)
def test_simulated_npu_gives_the_models_bits_and_agrees_with_onnxruntime(op):
    from compiler.backends import build
    from npusim.flow import execute
    shape = [1, 3, 20, 30]  # 1800 elements
    model = _onnx(op, shape)
    x = (np.random.default_rng(0).standard_normal(shape) * 4).astype(np.float16)
    compiled = build(model, FP16)
    assert [type(layer).__name__ for layer in compiled.lowered.layers] == ["VecFnLayer"]
    (entry,) = compiled.artifact.inputs
    assert entry.shape == tuple(shape)  # elementwise: no layout change
    _, out = execute(compiled.artifact, {entry.name: x})
    y = np.asarray(out[compiled.artifact.outputs[0].name]).reshape(shape)
    assert y.dtype == np.float16
    assert np.array_equal(y, evaluate(program(op, ATTRS.get(op, {})), x))
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]) \
        .run(None, {"x": x.astype(np.float32)})[0]
    np.testing.assert_allclose(y.astype(np.float32), ref, rtol=1e-3, atol=3e-4)


def test_a_float_op_on_a_non_fp16_hw_names_the_way_it_runs():
    g = Graph("s")
    g.add_input("x", TensorType((1, 4, 4, 8), "float32"))
    g.add_node(Node("tanh", ["x"], "y", {}))
    g.outputs = ["y"]
    g = infer_types(g)
    (layer,) = lower(g, FP16).layers
    assert isinstance(layer, VecFnLayer) and layer.steps[-1][1] == "y"
    with pytest.raises(CompilerError, match="int8 runs it as a vlut table"):
        lower(g, "npu-edge")


def test_an_op_without_a_program_is_refused_by_name():
    with pytest.raises(CompilerError, match="no fp16 vector program for 'power'"):
        program("power", {})
    assert onnx  # (imported for the model builder)
