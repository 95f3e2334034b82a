"""Shared shape-inference helpers of the op tables (layouts, windows, broadcasting)."""

from __future__ import annotations

import numpy as np

from isa.semantics import conv_out_size

from ..errors import OpError
from ..ir.types import TensorType
from .registry import Attr

FLOATS = ("float32", "float16")
LAYOUTS = ("NCHW", "NHWC")

# Attributes shared by the windowed ops; pads are (top, left, bottom, right) as in isa.semantics.
WINDOW_ATTRS = (
    Attr("strides", "ints", (1, 1), length=2, min=1),
    Attr("pads", "ints", (0, 0, 0, 0), length=4, min=0),
)
LAYOUT_ATTR = Attr("layout", "str", "NCHW", choices=LAYOUTS)


def nchw(t: TensorType, layout: str, what: str = "input") -> tuple:
    """(n, c, h, w) of a 4-D activation in `layout`."""
    if t.rank != 4:
        raise OpError(f"{what} must be a 4-D {layout} tensor, got {t}")
    n, a, b, c = t.shape
    return (n, a, b, c) if layout == "NCHW" else (n, c, a, b)


def make(n: int, c: int, h: int, w: int, layout: str, dtype: str) -> TensorType:
    return TensorType((n, c, h, w) if layout == "NCHW" else (n, h, w, c), dtype)


def window_out(h: int, w: int, kernel, attrs: dict, dilations=(1, 1)) -> tuple:
    top, left, bottom, right = attrs["pads"]
    sh, sw = attrs["strides"]
    oh = conv_out_size(h, kernel[0], sh, top, bottom, dilations[0])
    ow = conv_out_size(w, kernel[1], sw, left, right, dilations[1])
    if oh < 1 or ow < 1:
        raise OpError(f"window {tuple(kernel)} with strides {attrs['strides']}, pads "
                      f"{attrs['pads']} and dilations {tuple(dilations)} leaves no output from "
                      f"a {h}x{w} input; pad more or use a smaller kernel")
    return oh, ow


def per_channel(v: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A 1-D per-channel vector shaped to broadcast along `axis` of a rank-`rank` tensor."""
    shape = [1] * rank
    shape[axis] = -1
    return np.asarray(v).reshape(shape)


def require_float(t: TensorType, what: str) -> None:
    if t.dtype not in FLOATS:
        raise OpError(f"{what} must be float32 or float16, got {t.dtype} (quantized graphs "
                      "use the qnn.* ops)")


def same_dtype(types, what: str = "inputs") -> str:
    dtypes = {t.dtype for t in types}
    if len(dtypes) != 1:
        raise OpError(f"{what} must share one dtype, got {', '.join(str(t) for t in types)}")
    return dtypes.pop()


def broadcast(types) -> tuple:
    try:
        return tuple(np.broadcast_shapes(*(t.shape for t in types)))
    except ValueError:
        raise OpError(f"shapes {', '.join(str(t.shape) for t in types)} do not broadcast "
                      "(numpy rules)") from None


def norm_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise OpError(f"{what} {axis} is out of range for a rank-{rank} tensor "
                      f"(allowed {-rank}..{rank - 1})")
    return axis % rank
