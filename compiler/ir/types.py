"""Tensor types of the graph IR: a static shape and one of five element types."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import GraphError

# int64: token ids only (a model input an embedding lookup reads on the host)
DTYPES = ("float32", "float16", "int8", "int32", "int64")
_DTYPE_NAMES: dict = {}  # numpy dtype -> str(dtype), filled as TensorType.of meets them


@dataclass(frozen=True)
class TensorType:
    """Static shape (tuple of positive ints) and element type of one value."""

    shape: tuple
    dtype: str = "float32"

    def __post_init__(self):
        try:
            shape = tuple(int(d) for d in self.shape)
        except (TypeError, ValueError):
            raise GraphError(f"tensor shape {self.shape!r} is not a tuple of integers") from None
        if any(d < 1 for d in shape):
            raise GraphError(f"tensor shape {shape} has a dimension < 1; shapes are static "
                             "and every dimension must be positive")
        dtype = str(np.dtype(self.dtype)) if self.dtype not in DTYPES else self.dtype
        if dtype not in DTYPES:
            raise GraphError(f"dtype '{self.dtype}' is not supported; known: {', '.join(DTYPES)}")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", dtype)

    @classmethod
    def of(cls, array: np.ndarray) -> "TensorType":
        array = np.asarray(array)
        name = _DTYPE_NAMES.get(array.dtype)
        if name is None:  # str(dtype) runs Python code in numpy: once per dtype, not per call
            name = _DTYPE_NAMES.setdefault(array.dtype, str(array.dtype))
        return cls(array.shape if array.ndim else (1,), name)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.numel * np.dtype(self.dtype).itemsize

    def with_dtype(self, dtype: str) -> "TensorType":
        return TensorType(self.shape, dtype)

    def with_shape(self, shape) -> "TensorType":
        return TensorType(tuple(shape), self.dtype)

    def __str__(self) -> str:
        dims = ", ".join(str(d) for d in self.shape)
        if len(self.shape) == 1:
            dims += ","
        return f"Tensor[({dims}), {self.dtype}]"
