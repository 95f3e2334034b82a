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
            dict(gelu_form="op", opset=20, mask="where"), dict(gelu_form="tanh_op", opset=20),
            dict(pos=True)]


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


def test_block_file_runs_from_the_cli_verified(capsys, tmp_path):
    """The hand-built block (LayerNorm, Q/K/V, Q.K^T, Softmax, P.V, Erf-GELU MLP, residual
    adds) from its ONNX file: compiled, simulated, bit-exact and compared with onnxruntime on
    the file; Softmax and LayerNorm are NPU layers."""
    import json

    import onnx

    from npusim.cli.main import main
    path = tmp_path / "block.onnx"
    onnx.save(block(decomposed_ln=True, mask="add"), str(path))
    code = main(["run", str(path), "--json"])
    s = json.loads(capsys.readouterr()[0])
    assert code == 0 and s["verified"] is True and s["bit_exact"] is True
    assert s["reference"] == "onnxruntime on block.onnx" and s["snr_db"] > 25
    kinds = [layer["kind"] for layer in s["layers"]]
    assert kinds.count("layernorm") == 2 and kinds.count("softmax") == 1
    assert kinds.count("matmul") == 2


@pytest.mark.parametrize("kw", VARIANTS[2:], ids=lambda kw: "-".join(map(str, kw.values())))
def test_block_variants_simulate_bit_exact(kw):
    """The tanh GELU, a Where mask and opset-20 Gelu forms on the NPU, bit-exact."""
    from npusim import flow
    c = flow.compile(block(**kw), "npu-edge", evaluate=None)
    v = flow.verify(c, flow.simulate(c))
    assert v.bit_exact is True and v.snr_db > 25, v
