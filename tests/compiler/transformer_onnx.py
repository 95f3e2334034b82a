"""A transformer encoder block built with onnx.helper in the forms exporters write it
(PyTorch's Erf GELU, the decomposed or opset-17 LayerNorm, Q.K^T / sqrt(d) with an optional
causal mask, head splitting by Reshape/Transpose): the fixture of test_transformer_onnx.py."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_nets import Net


def _ints(n: Net, values) -> str:
    return n.const(np.asarray(values, np.int64), "shape")


def _f(n: Net, v) -> str:
    return n.const(np.asarray(v, np.float32), "k")


def layer_norm(n: Net, x, h: int, decomposed: bool):
    g = n.const(n.r.uniform(0.8, 1.2, h).astype(np.float32), "ln_g")
    b = n.const(n.r.uniform(-0.1, 0.1, h).astype(np.float32), "ln_b")
    if not decomposed:
        return n.node("LayerNormalization", [x, g, b], axis=-1, epsilon=1e-5)
    mean = n.node("ReduceMean", [x], axes=[-1])
    d = n.node("Sub", [x, mean])
    var = n.node("ReduceMean", [n.node("Pow", [d, _f(n, 2.0)])], axes=[-1])
    s = n.node("Sqrt", [n.node("Add", [var, _f(n, 1e-5)])])
    return n.node("Add", [n.node("Mul", [n.node("Div", [d, s]), g]), b])


def linear(n: Net, x, fin: int, fout: int, scale: float = 1.0):
    w = (n.r.standard_normal((fin, fout)) * scale / np.sqrt(fin)).astype(np.float32)
    y = n.node("MatMul", [x, n.const(w, "w")])
    return n.node("Add", [y, n.const(n.r.uniform(-0.05, 0.05, fout).astype(np.float32), "b")])


def gelu(n: Net, x, form: str):
    if form == "op":
        return n.node("Gelu", [x])
    if form == "tanh_op":
        return n.node("Gelu", [x], approximate="tanh")
    if form == "tanh":
        x3 = n.node("Pow", [x, _f(n, 3.0)])
        inner = n.node("Add", [x, n.node("Mul", [x3, _f(n, 0.044715)])])
        f = n.node("Tanh", [n.node("Mul", [inner, _f(n, np.sqrt(2 / np.pi))])])
    else:
        f = n.node("Erf", [n.node("Div", [x, _f(n, np.sqrt(2.0))])])
    return n.node("Mul", [n.node("Mul", [x, n.node("Add", [f, _f(n, 1.0)])]), _f(n, 0.5)])


def block(seq: int = 16, hidden: int = 32, heads: int = 2, ffn: int = 64, opset: int = 17,
          decomposed_ln: bool = False, gelu_form: str = "erf", mask: str | None = None,
          pos: bool = False, seed: int = 0):
    """x (1, seq, hidden) [+ a position embedding] -> pre-LN attention + residual -> pre-LN
    Erf-GELU MLP + residual."""
    n = Net(seed, opset)
    d = hidden // heads
    x = "x"
    if pos:
        x = n.node("Add", [x, n.const((n.r.standard_normal((1, seq, hidden)) * 0.2).astype(
            np.float32), "pos")])
    h1 = layer_norm(n, x, hidden, decomposed_ln)

    def heads_of(v, perm):
        r = n.node("Reshape", [v, _ints(n, [1, seq, heads, d])])
        return n.node("Transpose", [r], perm=perm)
    q = heads_of(linear(n, h1, hidden, hidden), [0, 2, 1, 3])
    kt = heads_of(linear(n, h1, hidden, hidden), [0, 2, 3, 1])
    v = heads_of(linear(n, h1, hidden, hidden), [0, 2, 1, 3])
    scores = n.node("Div", [n.node("MatMul", [q, kt]), _f(n, np.sqrt(d))])
    causal = np.tril(np.ones((seq, seq), bool))
    if mask == "add":
        scores = n.node("Add", [scores, n.const(np.where(causal, 0.0, -1e4).astype(
            np.float32).reshape(1, 1, seq, seq), "mask")])
    elif mask == "where":
        scores = n.node("Where", [n.const(causal.reshape(1, 1, seq, seq), "causal"), scores,
                                  _f(n, np.finfo(np.float32).min)])
    p = n.node("Softmax", [scores], axis=-1)
    ctx = n.node("Transpose", [n.node("MatMul", [p, v])], perm=[0, 2, 1, 3])
    ctx = n.node("Reshape", [ctx, _ints(n, [1, seq, hidden])])
    x2 = n.node("Add", [x, linear(n, ctx, hidden, hidden, 0.5)])
    h2 = layer_norm(n, x2, hidden, decomposed_ln)
    f = gelu(n, linear(n, h2, hidden, ffn), gelu_form)
    y = n.node("Add", [x2, linear(n, f, ffn, hidden, 0.5)])
    return n.model((1, seq, hidden), y, opset, y_shape=[1, seq, hidden])
