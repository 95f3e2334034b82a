"""Strided views of a matmul's operands and result: each batch element's 2-D block of a DRAM
tensor (matmul.View)."""

from __future__ import annotations

import numpy as np

from .matmul import View, plain_view


def operand_view(lw, v: str, batch_index: np.ndarray, transposable: bool = False) -> View:
    """The view of operand `v` (contiguous (..., r, c) rows)."""
    return plain_view(v, lw.g.type_of(v).shape, batch_index)


def output_view(lw, v: str, batch: int) -> View:
    return plain_view(v, lw.g.type_of(v).shape, np.arange(batch))
