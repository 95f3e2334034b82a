"""Transformer ONNX import: the decomposed LayerNorm and GELU patterns become one op each,
masks fold into the Softmax, scalar scales into the matmul; the float graph equals
onnxruntime on the file."""

import numpy as np
import onnxruntime as ort
import pytest

from compiler.frontend import import_onnx
from compiler.reference import run_float

from transformer_onnx import block

VARIANTS = [dict(), dict(decomposed_ln=True), dict(gelu_form="tanh", mask="add"),
            dict(gelu_form="op", opset=20, mask="where"), dict(gelu_form="tanh_op", opset=20)]


@pytest.mark.parametrize("kw", VARIANTS, ids=lambda kw: "-".join(map(str, kw.values())) or
                         "default")
def test_block_imports_to_transformer_ops_and_matches_onnxruntime(kw):
    m = block(**kw)
    g = import_onnx(m)
    ops = [n.op for n in g.nodes]
    assert ops.count("nn.layer_norm") == 2 and ops.count("gelu") == 1
    assert ops.count("nn.matmul") == 2 and ops.count("nn.softmax") == 1
    assert not {"add", "multiply"} & set(ops[ops.index("nn.matmul"):ops.index("nn.softmax")])
    qk = next(n for n in g.nodes if n.op == "nn.matmul")
    assert qk.attrs["alpha"] == pytest.approx(1 / np.sqrt(16))
    sm = next(n for n in g.nodes if n.op == "nn.softmax")
    assert len(sm.inputs) == (2 if kw.get("mask") else 1)
    gelu = next(n for n in g.nodes if n.op == "gelu")
    assert gelu.attrs["approximate"] == ("tanh" if "tanh" in kw.get("gelu_form", "") else "none")
    x = np.random.default_rng(1).standard_normal((1, 16, 32)).astype(np.float32)
    ref = ort.InferenceSession(m.SerializeToString()).run(None, {"x": x})[0]
    y = list(run_float(g, {"x": x}).values())[0]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=2e-6)
