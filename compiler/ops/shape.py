"""Data-movement ops (flatten, reshape, concat, transpose, layout_transform): any dtype."""

from __future__ import annotations

import numpy as np

from .. import qscheme as qs
from ..errors import OpError, QuantizationError
from ..ir.types import TensorType
from .common import LAYOUTS, norm_axis, same_dtype
from .registry import REQUIRED, Attr, OpDef, register_hook, register_op


def flatten_type(types, a) -> TensorType:
    x = types[0]
    axis = a["axis"] + x.rank if a["axis"] < 0 else a["axis"]  # ONNX: -1 is the last axis
    if not 0 <= axis <= x.rank:
        raise OpError(f"flatten axis {a['axis']} is out of range for {x}")
    lead = int(np.prod(x.shape[:axis], dtype=np.int64))
    return x.with_shape((lead, x.numel // lead))


register_op(OpDef("flatten", ("data",), flatten_type,
                  lambda arr, a: arr[0].reshape(flatten_type([TensorType.of(arr[0])], a).shape),
                  (Attr("axis", "int", 1),),
                  doc="ONNX Flatten: 2-D (prod(shape[:axis]), prod(shape[axis:]))",
                  traits=("alias", "reshape", "any_dtype")))


def resolve_shape(shape, numel: int, what: str = "reshape") -> tuple:
    """Resolve one -1 in a target shape; 0 is not allowed here (importers resolve it)."""
    shape = list(shape)
    if shape.count(-1) > 1 or any(d == 0 or d < -1 for d in shape):
        raise OpError(f"{what} shape {tuple(shape)} may hold one -1 and positive sizes only")
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if -1 in shape:
        if numel % known:
            raise OpError(f"{what} to {tuple(shape)}: {numel} elements do not divide by {known}")
        shape[shape.index(-1)] = numel // known
    if int(np.prod(shape, dtype=np.int64)) != numel:
        raise OpError(f"{what} to {tuple(shape)} needs {int(np.prod(shape))} elements, the "
                      f"input has {numel}")
    return tuple(shape)


register_op(OpDef("reshape", ("data",),
                  lambda types, a: types[0].with_shape(resolve_shape(a["shape"], types[0].numel)),
                  lambda arr, a: arr[0].reshape(resolve_shape(a["shape"], arr[0].size)),
                  (Attr("shape", "ints", REQUIRED),), doc="row-major reshape",
                  traits=("alias", "reshape", "any_dtype")))


def concat_type(types, a) -> TensorType:
    dtype = same_dtype(types, "concat inputs")
    rank = types[0].rank
    axis = norm_axis(a["axis"], rank)
    for t in types[1:]:
        if t.rank != rank or any(d != e for i, (d, e) in enumerate(zip(t.shape, types[0].shape))
                                 if i != axis):
            raise OpError(f"concat along axis {a['axis']}: {t} does not match {types[0]} "
                          "outside that axis")
    shape = list(types[0].shape)
    shape[axis] = sum(t.shape[axis] for t in types)
    return TensorType(tuple(shape), dtype)


register_op(OpDef("concat", tuple(["data"] + [f"data{i}?" for i in range(1, 64)]), concat_type,
                  lambda arr, a: np.concatenate(arr, axis=a["axis"]),
                  (Attr("axis", "int", 1),), doc="concatenate along `axis`",
                  traits=("channel_axis", "any_dtype")))

PERMS = {("NCHW", "NHWC"): (0, 2, 3, 1), ("NHWC", "NCHW"): (0, 3, 1, 2)}


def layout_perm(a) -> tuple:
    if a["src_layout"] == a["dst_layout"]:
        raise OpError(f"layout_transform from {a['src_layout']} to itself; remove it")
    return PERMS[(a["src_layout"], a["dst_layout"])]


def layout_type(types, a) -> TensorType:
    x = types[0]
    if x.rank != 4:
        raise OpError(f"layout_transform needs a 4-D tensor, got {x}")
    return x.with_shape(tuple(x.shape[i] for i in layout_perm(a)))


register_op(OpDef("layout_transform", ("data",), layout_type,
                  lambda arr, a: np.ascontiguousarray(arr[0].transpose(layout_perm(a))),
                  (Attr("src_layout", "str", REQUIRED, choices=LAYOUTS),
                   Attr("dst_layout", "str", REQUIRED, choices=LAYOUTS)),
                  doc="activation layout change (NCHW <-> NHWC)",
                  traits=("any_dtype",)))


def transpose_type(types, a) -> TensorType:
    x = types[0]
    if sorted(a["axes"]) != list(range(x.rank)):
        raise OpError(f"transpose axes {a['axes']} are not a permutation of 0..{x.rank - 1}")
    return x.with_shape(tuple(x.shape[i] for i in a["axes"]))


register_op(OpDef("transpose", ("data",), transpose_type,
                  lambda arr, a: np.ascontiguousarray(arr[0].transpose(a["axes"])),
                  (Attr("axes", "ints", REQUIRED),), doc="permute axes",
                  traits=("any_dtype",)))


# ---------------------------------------------------------------- quantization rules
def _quantize_move(qz, n) -> None:
    """Data movement keeps its op and its input's scale."""
    x, s_in = qz.input(n)
    qz.emit(n, n.op, [x], s_in, **n.attrs)


def _quantize_concat(qz, n) -> None:
    """Activations requantized to the output scale, the largest of theirs and of the constant
    parts' (nothing saturates); a constant part (ViT's class token) is quantized at the output
    scale itself, so its (mult, shift) is the identity and the NPU copies it as stored."""
    consts = [v for v in n.inputs if v in qz.f.constants]
    if len(consts) == len(n.inputs):
        raise QuantizationError(f"node '{n.name}' (concat) has only constant inputs; run "
                                "fold-constants first")
    acts = [v for v in n.inputs if v not in qz.f.constants]
    s_out = max([qz.scale[v] for v in acts] +
                [qs.act_scale(float(np.abs(qz.f.constants[v]).max())) for v in consts])
    ins, pairs = [], []
    for v in n.inputs:
        if v in qz.f.constants:
            ins.append(qz.const(f"{n.name}.{v}_q", qs.quantize(qz.f.constants[v], s_out)))
            pairs.append(qs.quantize_multiplier(1.0))
        else:
            ins.append(v)
            pairs.append(qs.quantize_multiplier(qz.scale[v] / s_out))
    qz.emit(n, "qnn.concat", ins, s_out, axis=n.attrs["axis"],
            mults=tuple(p[0] for p in pairs), shifts=tuple(p[1] for p in pairs))


register_hook("quantize", "flatten", "reshape", "transpose", "layout_transform",
              value=_quantize_move)
# a matmul reads an operand, or writes its result, through a transpose (lower/views.py)
register_hook("view", "transpose", value=lambda n: tuple(n.attrs["axes"]))
register_hook("quantize", "concat", value=_quantize_concat)
# a layout change at a graph's edge runs on the host (inputs NCHW -> NHWC, outputs back)
register_hook("host_step", "layout_transform",
              value=lambda n: ("transpose", layout_perm(n.attrs)))
