"""The embedding lookup: rows of a constant table picked by run-time integer indices (ONNX
Gather of token ids). It runs on the host, between a model input and the NPU (compiler/host.py):
no DMA of the ISA takes its address from data."""

from __future__ import annotations

import numpy as np

from ..errors import CompilerError, OpError
from ..ir.types import TensorType
from .common import norm_axis
from .registry import Attr, OpDef, register_hook, register_op

INDEX_DTYPES = ("int64", "int32")


def embedding_type(types, a) -> TensorType:
    table, idx = types
    if idx.dtype not in INDEX_DTYPES:
        raise OpError(f"embedding indices are {idx.dtype}; they must be integers "
                      f"({', '.join(INDEX_DTYPES)}: token ids)")
    if table.dtype in INDEX_DTYPES:
        raise OpError(f"embedding table is {table.dtype}; it must be a float or int8 table")
    axis = norm_axis(a["axis"], table.rank)
    return TensorType(table.shape[:axis] + idx.shape + table.shape[axis + 1:], table.dtype)


def take_rows(table: np.ndarray, ids, axis: int = 0, what: str = "embedding") -> np.ndarray:
    """table.take(ids, axis) with ONNX Gather's index rule (-n <= id < n, negative from the
    end); an id outside it is an error naming the first one, not a wrapped or clipped row."""
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise CompilerError(f"{what}: the indices are {ids.dtype}; token ids are integers "
                            "(give an int64 array)")
    n = table.shape[axis]
    bad = (ids < -n) | (ids >= n)
    if bad.any():
        first = int(ids[bad].reshape(-1)[0])
        raise CompilerError(f"{what}: index {first} is outside the table's {n} rows "
                            f"(allowed {-n}..{n - 1}); {int(bad.sum())} such indices")
    return np.take(table, ids.astype(np.int64), axis=axis)


register_op(OpDef("embedding", ("table", "indices"), embedding_type,
                  lambda arr, a: take_rows(arr[0], arr[1], a["axis"] % arr[0].ndim),
                  (Attr("axis", "int", 0),),
                  doc="rows of a constant table picked by run-time integer indices (token "
                      "ids): ONNX Gather of a constant by a model input; runs on the host"))

# the host gathers the rows straight into the NPU's input tensor (quantized with the table's
# scale: every row of it, seen by the calibration or not, fits)
register_hook("host_input", "embedding", value=lambda n: ("gather", n.attrs["axis"]))
register_hook("quantize_hint", "embedding",
              value="an embedding lookup runs on the host, and only of a model input (token "
                    "ids) read by nothing else; indices computed on the NPU have no form "
                    "there (a DMA whose address comes from data is not in the ISA)")


def index_bound(graph, v: str) -> int | None:
    """For an integer model input `v` that embedding lookups read: the rows of the smallest
    table (every id below it is valid everywhere); None when no lookup reads it."""
    bounds = [graph.type_of(n.inputs[0]).shape[n.attrs.get("axis", 0) %
                                                  graph.type_of(n.inputs[0]).rank]
              for n in graph.consumers().get(v, []) if n.op == "embedding" and
              n.inputs[1] == v]
    return min(bounds) if bounds else None
