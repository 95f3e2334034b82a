"""Quantized int8 NHWC ops: integer semantics written only in terms of isa.semantics.

Each compute function is the exact sequence of NPU operations the codegen emits (conv/gemm
on the matrix engine, then vbias, vrequant, vclip, vmul/vadd/vshr, pooling and vlut on the
vector unit), so the NPU's output can be compared with it bit for bit."""

from __future__ import annotations

import numpy as np

from isa import semantics as sem

from ..errors import OpError
from ..ir.types import TensorType
from .common import WINDOW_ATTRS, window_out
from .fused import ACTS
from .nn import conv2d_type, dense_type
from .registry import REQUIRED, Attr, OpDef, register_op

I8, I32 = np.int8, np.int32

QEPILOGUE_ATTRS = (
    Attr("act", "str", "none", choices=ACTS),
    Attr("act_lo", "int", -128), Attr("act_hi", "int", 127),
    Attr("out_zp", "int", 0),
    Attr("lhs_mult", "int", 0), Attr("rhs_mult", "int", 0), Attr("add_shift", "int", 0),
    Attr("post_act", "str", "none", choices=ACTS),
    Attr("post_lo", "int", -128), Attr("post_hi", "int", 127),
)
REQUANT_ATTRS = (Attr("mult", "int", REQUIRED), Attr("shift", "int", REQUIRED, min=0))


def expect_dtypes(types, dtypes, op: str) -> None:
    for i, (t, d) in enumerate(zip(types, dtypes)):
        if t.dtype != d:
            raise OpError(f"{op} input {i} must be {d}, got {t}")


def _float(types):
    return [t.with_dtype("float32") for t in types]


def _check_params(types, out: TensorType, channels: int, op: str) -> TensorType:
    for name, t in zip(("bias", "mult", "shift"), types[2:5]):
        if t.shape != (channels,):
            raise OpError(f"{op} {name} {t} must have {channels} elements (one per channel)")
    if len(types) > 5 and types[5].shape != out.shape:
        raise OpError(f"{op} residual {types[5]} must have the output's shape {out.shape}")
    return out.with_dtype("int8")


# ------------------------------------------------------------------ shared integer steps

def activate_int(y: np.ndarray, kind: str, lo: int, hi: int) -> np.ndarray:
    if kind == "relu":
        return sem.relu(y, I8)                       # vrelu
    if kind == "clip":
        return sem.clip(y, lo, hi, I8)               # vclip
    return y


def add_int(lhs: np.ndarray, rhs: np.ndarray, lhs_mult: int, rhs_mult: int,
            shift: int) -> np.ndarray:
    """sat8(round_shift(lhs * lhs_mult + rhs * rhs_mult, shift)): vmul, vmul, vadd, vshr."""
    t = sem.elementwise("vmul", lhs, np.asarray(lhs_mult, I32), I32)
    u = sem.elementwise("vmul", rhs, np.asarray(rhs_mult, I32), I32)
    return sem.shift_right(sem.elementwise("vadd", t, u, I32), shift, I8)


def requant_epilogue(acc: np.ndarray, arrays, a) -> np.ndarray:
    """acc (..., C) int32 -> int8: vbias, vrequant (fused relu), vclip, residual add, act."""
    shape, channels = acc.shape, acc.shape[-1]
    bias, mult, shift = arrays[2], arrays[3], arrays[4]
    acc = sem.bias_add(acc.reshape(-1), bias, channels, I32)
    y = sem.requantize(acc, mult, shift, a["out_zp"], a["act"] == "relu", channels)
    if a["act"] == "clip":
        y = sem.clip(y, a["act_lo"], a["act_hi"], I8)
    y = y.reshape(shape)
    if len(arrays) > 5:
        y = add_int(y, arrays[5], a["lhs_mult"], a["rhs_mult"], a["add_shift"])
        y = activate_int(y, a["post_act"], a["post_lo"], a["post_hi"])
    return y


def requant_per_tensor(acc: np.ndarray, mult: int, shift: int) -> np.ndarray:
    y = sem.requantize(acc.reshape(-1), np.array([mult], I32), np.array([shift], I32), 0,
                       False, 1)
    return y.reshape(acc.shape)


# ------------------------------------------------------------------ conv / dense

def conv_acc(x: np.ndarray, w: np.ndarray, a) -> np.ndarray:
    """int32 accumulators of a grouped conv: one matrix-engine conv per image and group."""
    g = a["groups"]
    cin_g, cout_g = w.shape[2], w.shape[3] // g
    images = []
    for img in x:
        parts = [sem.conv2d(img[:, :, i * cin_g:(i + 1) * cin_g],
                            w[:, :, :, i * cout_g:(i + 1) * cout_g],
                            a["strides"], a["pads"], a["dilations"]) for i in range(g)]
        images.append(np.concatenate(parts, axis=-1))
    return np.stack(images)


def qconv_type(types, a) -> TensorType:
    expect_dtypes(types, ("int8", "int8", "int32", "int32", "int32", "int8"), "qnn.conv2d")
    out = conv2d_type(_float(types[:2]), {**a, "layout": "NHWC", "kernel_layout": "HWIO"})
    return _check_params(types, out, out.shape[3], "qnn.conv2d")


register_op(OpDef(
    "qnn.conv2d", ("data", "weight", "bias", "mult", "shift", "residual?"), qconv_type,
    lambda arr, a: requant_epilogue(conv_acc(arr[0], arr[1], a), arr, a),
    WINDOW_ATTRS + (Attr("dilations", "ints", (1, 1), length=2, min=1),
                    Attr("groups", "int", 1, min=1)) + QEPILOGUE_ATTRS,
    doc="int8 NHWC conv (HWIO weights) -> int32, + bias, requantize, act, residual",
    quantized=True))


def qdense_type(types, a) -> TensorType:
    expect_dtypes(types, ("int8", "int8", "int32", "int32", "int32", "int8"), "qnn.dense")
    out = dense_type(_float(types[:2]), a)
    return _check_params(types, out, out.shape[-1], "qnn.dense")


def qdense_compute(arr, a):
    x = arr[0]
    acc = sem.gemm(x.reshape(-1, x.shape[-1]), arr[1]).reshape(x.shape[:-1] + (-1,))
    return requant_epilogue(acc, arr, a)


register_op(OpDef("qnn.dense", ("data", "weight", "bias", "mult", "shift", "residual?"),
                  qdense_type, qdense_compute, QEPILOGUE_ATTRS,
                  doc="int8 x @ w (in, out) -> int32, + bias, requantize, act, residual",
                  quantized=True))


# ------------------------------------------------------------------ elementwise

def _int8_unary(types, a) -> TensorType:
    expect_dtypes(types, ("int8",), "input")
    return types[0]


def _int8_binary(types, a) -> TensorType:
    expect_dtypes(types, ("int8", "int8"), "input")
    if types[0].shape != types[1].shape:
        raise OpError(f"quantized binary ops need equal shapes, got {types[0]} and {types[1]}")
    return types[0]


register_op(OpDef("qnn.add", ("lhs", "rhs"), _int8_binary,
                  lambda arr, a: activate_int(add_int(arr[0], arr[1], a["lhs_mult"],
                                                      a["rhs_mult"], a["shift"]),
                                              a["act"], a["act_lo"], a["act_hi"]),
                  (Attr("lhs_mult", "int", REQUIRED), Attr("rhs_mult", "int", REQUIRED),
                   Attr("shift", "int", REQUIRED, min=0), Attr("act", "str", "none", choices=ACTS),
                   Attr("act_lo", "int", -128), Attr("act_hi", "int", 127)),
                  doc="sat8(round_shift(a*lhs_mult + b*rhs_mult, shift)), then act",
                  quantized=True))
register_op(OpDef("qnn.multiply", ("lhs", "rhs"), _int8_binary,
                  lambda arr, a: requant_per_tensor(
                      sem.elementwise("vmul", arr[0], arr[1], I32), a["mult"], a["shift"]),
                  REQUANT_ATTRS, doc="requantize(a * b) with one multiplier", quantized=True))
register_op(OpDef("qnn.relu", ("data",), _int8_unary, lambda arr, a: sem.relu(arr[0], I8),
                  doc="int8 max(x, 0) (zero point 0)", quantized=True))
register_op(OpDef("qnn.clip", ("data",), _int8_unary,
                  lambda arr, a: sem.clip(arr[0], a["lo"], a["hi"], I8),
                  (Attr("lo", "int", REQUIRED), Attr("hi", "int", REQUIRED)),
                  doc="int8 clip to [lo, hi]", quantized=True))


def lut_type(types, a) -> TensorType:
    expect_dtypes(types, ("int8", "int8"), "qnn.lut")
    if types[1].shape != (256,):
        raise OpError(f"qnn.lut table {types[1]} must have 256 entries (index = x + 128)")
    return types[0]


register_op(OpDef("qnn.lut", ("data", "table"), lut_type,
                  lambda arr, a: sem.lut(arr[0], arr[1]),
                  doc="256-entry int8 table lookup (sigmoid and other activations)",
                  quantized=True))


# ------------------------------------------------------------------ pooling

POOL_Q_ATTRS = (Attr("kernel", "ints", REQUIRED, length=2, min=1),) + WINDOW_ATTRS


def qpool_type(types, a) -> TensorType:
    expect_dtypes(types, ("int8",), "qnn pool")
    n, h, w, c = types[0].shape if types[0].rank == 4 else (None,) * 4
    if n is None:
        raise OpError(f"pool input must be 4-D NHWC, got {types[0]}")
    oh, ow = window_out(h, w, a["kernel"], a)
    return TensorType((n, oh, ow, c), "int8")


def _per_image(x, fn):
    return np.stack([fn(img) for img in x])


register_op(OpDef("qnn.max_pool2d", ("data",), qpool_type,
                  lambda arr, a: _per_image(arr[0], lambda img: sem.pool(
                      "max", img, a["kernel"], a["strides"], a["pads"], I8)),
                  POOL_Q_ATTRS, doc="int8 max pooling (scale unchanged)", quantized=True))


def qavg_compute(arr, a):
    total = _per_image(arr[0], lambda img: sem.pool("sum", img, a["kernel"], a["strides"],
                                                    a["pads"], I32))
    return requant_per_tensor(total, a["mult"], a["shift"])


register_op(OpDef("qnn.avg_pool2d", ("data",), qpool_type, qavg_compute,
                  POOL_Q_ATTRS + REQUANT_ATTRS,
                  doc="vsumpool to int32, then vrequant by mult/2^shift (includes 1/window)",
                  quantized=True))


def qglobal_type(types, a) -> TensorType:
    expect_dtypes(types, ("int8",), "qnn.global_avg_pool2d")
    if types[0].rank != 4:
        raise OpError(f"global pool input must be 4-D NHWC, got {types[0]}")
    n, h, w, c = types[0].shape
    return TensorType((n, 1, 1, c), "int8")


def qglobal_compute(arr, a):
    h, w = arr[0].shape[1:3]
    total = _per_image(arr[0], lambda img: sem.pool("sum", img, (h, w), (1, 1), (0, 0, 0, 0),
                                                    I32))
    return requant_per_tensor(total, a["mult"], a["shift"])


register_op(OpDef("qnn.global_avg_pool2d", ("data",), qglobal_type, qglobal_compute,
                  REQUANT_ATTRS, doc="vsumpool over HxW to int32, then vrequant",
                  quantized=True))


# ------------------------------------------------------------------ concat

def qconcat_type(types, a) -> TensorType:
    from .shape import concat_type
    expect_dtypes(types, ("int8",) * len(types), "qnn.concat")
    if len(a["mults"]) != len(types) or len(a["shifts"]) != len(types):
        raise OpError(f"qnn.concat needs one (mult, shift) per input: {len(types)} inputs, "
                      f"{len(a['mults'])} mults, {len(a['shifts'])} shifts")
    return concat_type(types, a)


def qconcat_compute(arr, a):
    # Each input is rescaled to the output scale (vcopy to abuf, vrequant); equal scales use
    # the exact identity mult = 2^30, shift = 30.
    parts = [requant_per_tensor(x.astype(I32), m, s)
             for x, m, s in zip(arr, a["mults"], a["shifts"])]
    return np.concatenate(parts, axis=a["axis"])


register_op(OpDef("qnn.concat", tuple(["data"] + [f"data{i}?" for i in range(1, 64)]),
                  qconcat_type, qconcat_compute,
                  (Attr("axis", "int", -1), Attr("mults", "ints", REQUIRED),
                   Attr("shifts", "ints", REQUIRED)),
                  doc="concatenate after requantizing every input to the output scale",
                  quantized=True))
