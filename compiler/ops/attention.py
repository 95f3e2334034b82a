"""Attention's integer ops: qnn.matmul (two int8 activations: Q.K^T, P.V, batched over heads)
and qnn.softmax (row max, exp, row sum, reciprocal on the vector unit), and the quantize rules
of their float ops (nn.matmul, nn.softmax), which register them beside their definitions."""

from __future__ import annotations

import math

import numpy as np

from isa import semantics as sem

from .. import qscheme as qs
from ..errors import OpError, QuantizationError
from ..ir.types import TensorType
from .common import norm_axis
from .qnn import expect_dtypes, requant_per_tensor
from .registry import REQUIRED, Attr, OpDef, register_op

I8, I32 = np.int8, np.int32

# ------------------------------------------------------------------ qnn.matmul


def batch_shape(a: TensorType, b: TensorType) -> tuple:
    try:
        return tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    except ValueError:
        raise OpError(f"matmul batch axes of {a} and {b} do not broadcast") from None


def qmatmul_type(types, a) -> TensorType:
    x, y = types
    expect_dtypes(types, ("int8", "int8"), "qnn.matmul")
    if x.rank < 2 or y.rank < 2 or x.shape[-1] != y.shape[-2]:
        raise OpError(f"qnn.matmul of {x} and {y}: needs (..., m, k) @ (..., k, n)")
    return TensorType(batch_shape(x, y) + (x.shape[-2], y.shape[-1]), "int8")


def batches(x: np.ndarray, y: np.ndarray) -> tuple:
    """Both operands broadcast over the batch axes, as (batch, m, k) and (batch, k, n)."""
    shape = tuple(np.broadcast_shapes(x.shape[:-2], y.shape[:-2]))
    xb = np.broadcast_to(x, shape + x.shape[-2:]).reshape((-1,) + x.shape[-2:])
    yb = np.broadcast_to(y, shape + y.shape[-2:]).reshape((-1,) + y.shape[-2:])
    return shape, xb, yb


def row_normalized(acc: np.ndarray, a_rows: np.ndarray, a) -> np.ndarray:
    """P.V of unnormalized probabilities P' (row max 127): the vector-unit sequence over one
    batch element's int32 (m, n) accumulators: S = vrsum(P') per row (per k-block, vadd),
    u = vrmul(S, norm_mult, norm_shift) = S / c' in Q<norm_frac> (a rows x 1 tile),
    r = vrecip(u) = c' / S in Q<recip_frac>, y = vrmul(acc, r, recip_frac) = round(acc c' / S)
    with c' = alpha * s_b / s_out: the row's weights sum to 1 exactly (those of P' as stored)."""
    m, n = acc.shape
    k = a_rows.shape[-1]
    total = sem.row_sum(a_rows.reshape(-1), m, k, I32)
    u = sem.row_mul(total, np.full(m, a["norm_mult"], I32), a["norm_shift"], m, 1, I32)
    r = sem.vrecip(u, a["norm_frac"], a["recip_frac"], I32)
    return sem.row_mul(acc.reshape(-1), r, a["recip_frac"], m, n, I8).reshape(m, n)


def qmatmul_compute(arr, a):
    """One matrix-engine gemm per batch element (int32), then vrequant by one multiplier (or,
    row_norm, each row divided by its A row's sum: row_normalized)."""
    shape, xb, yb = batches(arr[0], arr[1])
    acc = np.stack([sem.gemm(xi, yi) for xi, yi in zip(xb, yb)])
    if a.get("row_norm"):
        y = np.stack([row_normalized(ai, xi, a) for ai, xi in zip(acc, xb)])
    else:
        y = requant_per_tensor(acc, a["mult"], a["shift"])
    return y.reshape(shape + y.shape[-2:])


register_op(OpDef("qnn.matmul", ("a", "b"), qmatmul_type, qmatmul_compute,
                  (Attr("mult", "int", REQUIRED), Attr("shift", "int", REQUIRED, min=0),
                   Attr("row_norm", "bool", False), Attr("norm_mult", "int", 0, min=0),
                   Attr("norm_shift", "int", 0, min=0), Attr("norm_frac", "int", 0, min=0),
                   Attr("recip_frac", "int", 0, min=0)),
                  doc="int8 a @ b of two activations per batch element -> int32, vrequant "
                  "by mult / 2^shift (alpha * s_a * s_b / s_out); row_norm: a is an "
                  "unnormalized softmax (row max 127) and each row is divided by a's row sum "
                  "(vrsum, vrmul, vrecip, vrmul)", quantized=True))


def row_norm_params(c: float, keys: int) -> dict:
    """qnn.matmul's row_norm attributes for y = acc * c / S with S <= 127 * keys (each row of
    P' holds one 127, so S >= 127): u = S / c in Q<norm_frac> below 2^30, and r = c / S in
    Q<recip_frac> below 2^31 (recip_frac <= 31: the vrmul shift field)."""
    frac = int(min(max(math.floor(math.log2((1 << 30) * c / (127 * keys))), 0), 30))
    recip = int(min(max(math.floor(math.log2((1 << 31) * 127 / c)) - 1, 0), ROW_SHIFT_MAX))
    mult, shift = softmax_scale_params(1.0 / c, frac)
    return dict(row_norm=True, norm_mult=mult, norm_shift=shift, norm_frac=frac,
                recip_frac=recip)


def quantize_matmul(qz, n) -> None:
    a, s_a = qz.input(n)
    b = qz.need_act(n, n.inputs[1])
    s_out = qz.calibrated(n.output)
    m, s = qs.quantize_multiplier(abs(n.attrs["alpha"]) * s_a * qz.scale[b] / s_out)
    extra = {}
    prod = qz.q.producers().get(a)
    if prod is not None and prod.op == "qnn.softmax" and not prod.attrs.get("normalize", True):
        # P.V of unnormalized probabilities: each row divided by its sum after the gemm
        extra = row_norm_params(n.attrs["alpha"] * qz.scale[b] / s_out,
                                qz.f.type_of(a).shape[-1])
    qz.emit(n, "qnn.matmul", [a, b], s_out, mult=-m if n.attrs["alpha"] < 0 else m, shift=s,
            **extra)


# ------------------------------------------------------------------ qnn.softmax
# Per row of the last axis (docs/transformers.md): x + mask * MASK_DROP (masked scores far
# below any kept one), m = vrmax, d = vrsub(x, m) <= 0, z = vrmul(d, M) the real d * s_x in
# Q<in_frac>, e = vexp(z) in Q<exp_frac>, s = vrsum(e), u = vrmul(s, M_out) = s * s_out in
# Q<sum_frac> (a rows x 1 tile), r = vrecip(u) in Q<recip_frac>, p = vrmul(e, r,
# exp_frac + recip_frac) = round(e / (s * s_out)): the probability in its calibrated output
# scale s_out (at most 1/127; a fixed 1/127 would leave a 196-token row's probabilities of
# about 1/196 one or two steps).

SOFTMAX_IN_FRAC = 16     # z = d * s_x in Q16: 2^-16 is far below the scores' int8 step
SOFTMAX_EXP_FRAC = 15    # exp(0) = 2^15; a row sum of 4095 of them stays below 2^27
SOFTMAX_SUM_FRAC = 24    # s * s_out in Q24: s * s_out <= 4095 / 127 < 2^5
SOFTMAX_RECIP_FRAC = 16  # 1 / (s * s_out) <= 1 / s_out <= 2^14 in Q16; exp + recip <= 31
SOFTMAX_MIN_SCALE = 2.0 ** -14  # keeps 1 / s_out (the reciprocal's largest value) in range
SOFTMAX_HEADROOM = 2.0   # the calibrated largest probability times this: a row of few keys
                         # may peak higher on other inputs than on the calibration samples
MASK_DROP = -(1 << 20)   # added to a dropped score: vexp clamps it (below -32 real) to 0
ROW_SHIFT_MAX = 31       # the vrmul shift field is 5 bits


def softmax_out_scale(absmax: float) -> float:
    """The probabilities' scale: calibrated with headroom (at most 1/127: they never
    exceed 1)."""
    return min(max(qs.act_scale(absmax * SOFTMAX_HEADROOM), SOFTMAX_MIN_SCALE), 1.0 / 127)


def softmax_scale_params(s_x: float, frac: int = SOFTMAX_IN_FRAC) -> tuple:
    """(mult, shift) with mult * 2^-shift = s_x * 2^frac, mult below 2^31, for vrmul."""
    target = s_x * (1 << frac)
    shift = min(max(30 - math.floor(math.log2(target)), 0), ROW_SHIFT_MAX)
    mult = int(round(target * (1 << shift)))
    if not 0 < mult < 1 << 31:
        raise QuantizationError(f"softmax input scale {s_x:g} gives multiplier {mult}, outside "
                                "1..2^31-1 (the scores' calibration is degenerate)")
    return mult, shift


def qsoftmax_type(types, a) -> TensorType:
    x = types[0]
    expect_dtypes(types, ("int8", "int8"), "qnn.softmax")
    if norm_axis(a["axis"], x.rank) != x.rank - 1:
        raise OpError(f"qnn.softmax normalizes the last axis; got axis {a['axis']} of {x} "
                      "(the quantizer transposes other axes last)")
    if len(types) > 1:
        m = types[1]
        if m.rank != 2 or m.shape[1] != x.shape[-1] or (x.numel // x.shape[-1]) % m.shape[0]:
            raise OpError(f"qnn.softmax mask {m} must be (P, {x.shape[-1]}) with P dividing "
                          f"the {x.numel // x.shape[-1]} rows of {x} (row r reads mask row "
                          "r % P)")
    return x


def mask_rows(mask: np.ndarray, rows: int) -> np.ndarray:
    """The mask row of each of `rows` score rows (row r reads mask row r % P)."""
    return np.tile(mask, (rows // mask.shape[0], 1))


def softmax_int(x: np.ndarray, mask: np.ndarray | None, a) -> np.ndarray:
    """The vector-unit sequence over (rows, cols) int8 scores -> int8 probabilities * 127."""
    cols = x.shape[-1]
    rows = x.size // cols
    t = x.reshape(-1)
    if mask is not None:
        drop = sem.row_mul(mask_rows(mask, rows).reshape(-1), np.full(rows, MASK_DROP, I32),
                           0, rows, cols, I32)
        t = sem.elementwise("vadd", drop, t, I32)
    m = sem.row_max(t, rows, cols, I32)
    d = sem.row_sub(t, m, rows, cols, I32)
    z = sem.row_mul(d, np.full(rows, a["in_mult"], I32), a["in_shift"], rows, cols, I32)
    e = sem.vexp(z, a["in_frac"], a["exp_frac"], I32)
    if not a.get("normalize", True):  # P' = round(127 e / exp(0)): the matmul after it normalizes
        return sem.row_mul(e, np.full(rows, 127, I32), a["exp_frac"], rows, cols,
                           I8).reshape(x.shape)
    s = sem.row_sum(e, rows, cols, I32)
    u = sem.row_mul(s, np.full(rows, a["out_mult"], I32), a["out_shift"], rows, 1, I32)
    r = sem.vrecip(u, a["sum_frac"], a["recip_frac"], I32)
    p = sem.row_mul(e, r, a["exp_frac"] + a["recip_frac"], rows, cols, I8)
    return p.reshape(x.shape)


register_op(OpDef("qnn.softmax", ("data", "mask?"), qsoftmax_type,
                  lambda arr, a: softmax_int(arr[0], arr[1] if len(arr) > 1 else None, a),
                  (Attr("axis", "int", -1), Attr("in_mult", "int", REQUIRED),
                   Attr("in_shift", "int", REQUIRED, min=0),
                   Attr("out_mult", "int", REQUIRED), Attr("out_shift", "int", REQUIRED, min=0),
                   Attr("in_frac", "int", SOFTMAX_IN_FRAC, min=0),
                   Attr("exp_frac", "int", SOFTMAX_EXP_FRAC, min=0),
                   Attr("sum_frac", "int", SOFTMAX_SUM_FRAC, min=0),
                   Attr("recip_frac", "int", SOFTMAX_RECIP_FRAC, min=0),
                   Attr("normalize", "bool", True)),
                  doc="int8 softmax over the last axis (mask: int8 (P, cols), 1 drops a "
                  "score): vrmax, vrsub, vrmul, vexp, vrsum, vrmul, vrecip, vrmul (output scale: "
                  "calibrated, at most 1/127); normalize=False: round(127 exp(x - max)), each "
                  "row's largest 127, for a matmul that divides by the row sums (row_norm)",
                  quantized=True))


def mask_rows_of(mask: np.ndarray, shape: tuple) -> np.ndarray:
    """An additive mask broadcast to the scores `shape`, as (P, cols) rows that score row r
    reads as row r % P: P is the mask's own rows when it broadcasts over the leading axes (a
    causal (1, 1, S, S) mask: P = S, stored once, not per head), else every row."""
    cols = shape[-1]
    lead = mask.reshape((1,) * (len(shape) - mask.ndim) + mask.shape)
    if all(d == 1 for d in lead.shape[:-2]):
        return np.broadcast_to(lead, lead.shape[:-2] + (shape[-2], cols)).reshape(-1, cols)
    return np.broadcast_to(mask, shape).reshape(-1, cols)


def drop_mask(mask: np.ndarray, shape: tuple) -> np.ndarray:
    """The int8 (P, cols) table of qnn.softmax: 1 where the additive mask drops a score."""
    return (mask_rows_of(mask, shape) < -1e3).astype(I8)


def quantize_softmax(qz, n) -> None:
    x, s_in = qz.input(n)
    t = qz.f.type_of(x)
    axis = norm_axis(n.attrs["axis"], t.rank)
    ins = [x]
    if len(n.inputs) > 1:
        if n.inputs[1] not in qz.f.constants:
            raise QuantizationError(f"node '{n.name}': the softmax mask must be a constant")
        mask = np.asarray(qz.f.constants[n.inputs[1]])
        if axis != t.rank - 1:
            raise QuantizationError(f"node '{n.name}': a masked softmax over axis {axis} of "
                                    f"{t}; masks are supported over the last axis")
        ins.append(qz.const(f"{n.name}.mask", drop_mask(mask, t.shape)))
    mult, shift = softmax_scale_params(s_in)
    s_out = softmax_out_scale(qz.absmax.get(n.output, 1.0))
    o_mult, o_shift = softmax_scale_params(s_out, SOFTMAX_SUM_FRAC - SOFTMAX_EXP_FRAC)
    attrs = dict(in_mult=mult, in_shift=shift, out_mult=o_mult, out_shift=o_shift)
    if axis == t.rank - 1 and _feeds_pv(qz, n):
        # P.V alone reads it: probabilities of ~1/keys are a step or two of any per-tensor
        # scale, so the rows go unnormalized (largest 127) and the matmul divides by the sums
        return qz.emit(n, "qnn.softmax", ins, 1.0 / 127, normalize=False, **attrs)
    if axis == t.rank - 1:
        return qz.emit(n, "qnn.softmax", ins, s_out, **attrs)
    # another axis: moved last, normalized, moved back (two strided DMA copies)
    perm = [i for i in range(t.rank) if i != axis] + [axis]
    inv = tuple(int(i) for i in np.argsort(perm))
    pre, mid = qz.q.fresh_name(f"{n.output}.last"), qz.q.fresh_name(f"{n.output}.sm")
    from ..ir.graph import Node
    qz.q.add_node(Node("transpose", [x], pre, {"axes": tuple(perm)}, f"{n.name}.to_last"))
    qz.q.add_node(Node("qnn.softmax", [pre] + ins[1:], mid, attrs, n.name))
    qz.q.add_node(Node("transpose", [mid], n.output, {"axes": inv}, f"{n.name}.back"))
    qz.scale.update({pre: s_in, mid: s_out, n.output: s_out})



def _feeds_pv(qz, n) -> bool:
    """Whether softmax `n`'s only reader is a matmul taking it as A (P.V) with alpha > 0,
    and it is no graph output."""
    readers = qz.f.consumers().get(n.output, [])
    return n.output not in qz.f.outputs and len(readers) == 1 and \
        readers[0].op == "nn.matmul" and readers[0].inputs[0] == n.output and \
        readers[0].inputs[1] != n.output and readers[0].attrs.get("alpha", 1.0) > 0
