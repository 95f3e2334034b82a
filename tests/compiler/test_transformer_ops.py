"""The transformer ops' integer kernels against float: qnn.softmax and qnn.layer_norm within
a few output steps of the real function (their parameters from the quantize rules), masks that
drop exactly, qnn.matmul's batch broadcasting; and their quantized graphs run on the NPU."""

import numpy as np
import pytest

from compiler import build_quantized
from compiler.frontend.builder import GraphBuilder
from compiler.ops import get_op
from compiler.ops.attention import (drop_mask, softmax_int, softmax_out_scale,
                                    softmax_scale_params, SOFTMAX_SUM_FRAC, SOFTMAX_EXP_FRAC)
from compiler.ops.elementwise import softmax
from compiler.ops.norm import layer_norm


def _softmax_attrs(s_x: float, s_out: float) -> dict:
    m, sh = softmax_scale_params(s_x)
    om, osh = softmax_scale_params(s_out, SOFTMAX_SUM_FRAC - SOFTMAX_EXP_FRAC)
    return get_op("qnn.softmax").normalize_attrs(dict(in_mult=m, in_shift=sh, out_mult=om,
                                                      out_shift=osh))


@pytest.mark.parametrize("cols, s_x", [(16, 0.05), (128, 0.02), (197, 0.1), (1000, 0.01)])
def test_softmax_int_is_within_one_step_of_float(cols, s_x):
    q = np.random.default_rng(cols).integers(-128, 128, (8, cols)).astype(np.int8)
    ref = softmax(q.astype(np.float64) * s_x, -1)
    s_out = softmax_out_scale(ref.max())
    p = softmax_int(q, None, _softmax_attrs(s_x, s_out)).astype(np.float64) * s_out
    assert np.abs(p - ref).max() <= 1.01 * s_out   # rounding + the exp/recip error bounds
    assert p.min() >= 0


def test_masked_softmax_drops_exactly_and_renormalizes():
    seq = 12
    causal = np.where(np.tril(np.ones((seq, seq), bool)), 0.0, -1e4).reshape(1, 1, seq, seq)
    mask = drop_mask(causal, (1, 2, seq, seq))
    assert mask.shape == (seq, seq) and mask.sum() == seq * (seq - 1) // 2  # stored once
    q = np.random.default_rng(0).integers(-128, 128, (1, 2, seq, seq)).astype(np.int8)
    p = softmax_int(q, mask, _softmax_attrs(0.05, 1 / 127)).astype(np.int64)
    dropped = np.broadcast_to(np.triu(np.ones((seq, seq), bool), 1), p.shape)
    assert (p[dropped] == 0).all()
    assert p[0, :, 0, 0].tolist() == [127, 127]          # one key left: probability 1
    np.testing.assert_allclose(p.sum(axis=-1) / 127, 1.0, atol=seq * 0.5 / 127)


def test_layer_norm_int_matches_float_within_two_steps():
    rng = np.random.default_rng(3)
    h, s_in = 96, 0.04
    q = rng.integers(-128, 128, (16, h)).astype(np.int8)
    q[0] = 7            # a constant row: variance 0, eps alone
    gamma = rng.uniform(0.5, 1.5, h).astype(np.float32)
    gamma[5] = -0.7     # negative gammas take a negated multiplier
    beta = rng.normal(0, 0.1, h).astype(np.float32)
    b = GraphBuilder("ln")
    x = b.input("x", (16, h))
    g = b.build(b.op("nn.layer_norm", [x, gamma, beta]))
    ref = layer_norm(q.astype(np.float32) * s_in, gamma, beta, 1e-5)
    m = build_quantized(g, [{"x": q.astype(np.float32) * s_in}])
    s_out = m.graph.meta["scales"][m.graph.outputs[0]]
    y = list(m.run_int(m.quantize_inputs({"x": q.astype(np.float32) * s_in})).values())[0]
    assert np.abs(y * s_out - ref).max() <= 2 * s_out


def test_qnn_matmul_broadcasts_batch_axes():
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, (2, 3, 4, 5)).astype(np.int8)
    b = rng.integers(-128, 128, (1, 3, 5, 6)).astype(np.int8)
    y = get_op("qnn.matmul").compute([a, b], {"mult": 1 << 30, "shift": 37})
    ref = np.rint(np.matmul(a.astype(np.int64), b.astype(np.int64)) / 128.0 + 1e-9)
    assert y.shape == (2, 3, 4, 6)
    np.testing.assert_array_equal(y, np.clip(ref, -128, 127))


def test_softmax_over_a_middle_axis_runs_on_the_npu_bit_exact():
    from npusim import flow
    rng = np.random.default_rng(0)
    b = GraphBuilder("mid_softmax")
    x = b.input("x", (1, 8, 16))
    y = b.dense(x, rng.normal(0, 0.25, (16, 16)).astype(np.float32), name="fc1")
    y = b.softmax(y, axis=1, name="sm")
    y = b.dense(y, rng.normal(0, 0.25, (16, 16)).astype(np.float32), name="fc2")
    c = flow.compile(b.build(y), "npu-edge", evaluate=None)
    kinds = [layer["kind"] for layer in c.artifact.layers]
    assert kinds.count("softmax") == 1 and kinds.count("copy") == 2  # moved last and back
    r = flow.simulate(c)
    assert flow.verify(c, r).bit_exact is True


@pytest.mark.parametrize("keys", [16, 197, 1000])
def test_unnormalized_softmax_and_row_divided_pv_are_close_to_float(keys):
    """P' = round(127 exp(x - max)) (each row's largest 127) then P'.V divided by P''s row
    sums: within about one output step of softmax(x) @ v, where P at one per-tensor scale
    leaves probabilities of ~1/keys one or two steps."""
    from compiler.ops.attention import row_norm_params
    rng = np.random.default_rng(keys)
    s_x, s_v = 0.03, 0.02
    x = rng.integers(-128, 128, (6, keys)).astype(np.int8)
    v = rng.integers(-128, 128, (keys, 32)).astype(np.int8)
    ref = softmax(x.astype(np.float64) * s_x, -1) @ (v.astype(np.float64) * s_v)
    s_out = np.abs(ref).max() / 127
    attrs = dict(_softmax_attrs(s_x, 1 / 127), normalize=False)
    p = softmax_int(x, None, attrs)
    assert p.max(axis=1).tolist() == [127] * 6  # every row's largest
    mm = get_op("qnn.matmul")
    a = mm.normalize_attrs(dict(mult=1, shift=0, **row_norm_params(s_v / s_out, keys)))
    y = mm.compute([p, v], a).astype(np.float64) * s_out
    assert np.abs(y - ref).max() <= 1.5 * s_out


def test_layer_norm_on_the_npu_adds_beta_in_its_vrequant_bit_exact():
    """The per-channel epilogue is one vrequant bias=1 per row tile ((bias, mult, shift)
    triples), no vbias over the tile; the cost model's tile estimate counts the same passes."""
    from compiler.lower.rowwise import RowLayer
    from npusim import flow
    rng = np.random.default_rng(4)
    h = 48
    b = GraphBuilder("ln_npu")
    x = b.input("x", (24, h))
    y = b.op("nn.layer_norm", [x, rng.uniform(0.5, 1.5, h).astype(np.float32),
                               rng.normal(0, 0.5, h).astype(np.float32)])
    c = flow.compile(b.build(y), "npu-edge", evaluate=None)
    ln = [lay for lay in c.built.lowered.layers if isinstance(lay, RowLayer)]
    assert [lay.op for lay in ln] == ["layernorm"]
    ins = c.artifact.program.instructions()
    epilogue = [(i.mnemonic, i.fields.get("bias")) for i in ins
                if i.mnemonic in ("vbias", "vrequant") and i.fields["channels"] == h]
    assert epilogue == [("vrequant", 1)] * len(ln[0].items())
    assert [m for m, over, *_ in ln[0].vector_ops()
            if over == "tile" and m in ("vbias", "vrequant")] == ["vrequant"]
    assert flow.verify(c, flow.simulate(c)).bit_exact is True
