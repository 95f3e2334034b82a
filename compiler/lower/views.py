"""Strided views of a matmul's operands and result (matmul.View): a head split before a
matmul (reshape + transpose of a dense output) and the merge after it (transpose + reshape)
are read and written in place by the matmul's DMAs, so their copy layers disappear.

An operand produced by a transpose (an op with a `view` hook) that only this matmul reads is viewed through it: each
batch element's block of the transpose's source is affine (element (i, j) at base + i * row +
j * col), with col == 1 (rows) or, for B, row == 1 (stored transposed: the gemm's wt = 1);
the transpose's copy layer, already appended, is taken back out. A result that only one
transpose reads is stored through it, and that transpose lowers to nothing."""

from __future__ import annotations

import numpy as np

from ..ops import get_hook
from .matmul import View, plain_view


def _affine(blocks: np.ndarray):
    """(bases, row, col) when every (r, c) block of element indices is base + i*row + j*col
    with one row and col for all, else None."""
    _, r, c = blocks.shape
    bases = blocks[:, 0, 0]
    row = int(blocks[0, 1, 0] - bases[0]) if r > 1 else 0
    col = int(blocks[0, 0, 1] - bases[0]) if c > 1 else 1
    grid = bases[:, None, None] + np.arange(r)[:, None] * row + np.arange(c)[None, :] * col
    return (tuple(int(b) for b in bases), row, col) if np.array_equal(grid, blocks) else None


def _only_reader(lw, v: str, node) -> bool:
    readers = [n for n in lw.g.nodes if v in n.inputs]
    return readers == [node] and v not in lw.g.outputs


def operand_view(lw, node, v: str, batch_index: np.ndarray, transposable: bool = False) -> View:
    """The view of operand `v` of matmul `node`: through a transpose that only it reads, or
    contiguous (..., r, c) rows."""
    plain = plain_view(v, lw.g.type_of(v).shape, batch_index)
    prod = lw.g.producers().get(v)
    view = get_hook(prod.op, "view") if prod is not None else None
    if view is None or not _only_reader(lw, v, node):
        return plain
    src = prod.inputs[0]
    root = src
    while root in lw.aliases:  # a reshape before the transpose holds the same bytes
        root = lw.aliases[root]
    shape = lw.g.type_of(v).shape
    idx = np.arange(lw.g.type_of(src).numel).reshape(lw.g.type_of(src).shape)
    idx = idx.transpose(view(prod)).reshape((-1,) + shape[-2:])
    hit = _affine(idx[batch_index])
    if hit is None:
        return plain
    bases, row, col = hit
    if col != 1 and not (transposable and row == 1):
        return plain
    if not _take_back(lw, prod):
        return plain
    return View(root, bases, row if col == 1 else 0, col)


def _take_back(lw, transpose) -> bool:
    """Remove the copy layer `transpose` lowered to (it is the matmul's view now)."""
    for i in range(len(lw.layers) - 1, -1, -1):
        layer = lw.layers[i]
        if layer.name == transpose.name and layer.y == transpose.output:
            del lw.layers[i]
            lw.tensors.pop(transpose.output, None)
            return True
    return False


def output_view(lw, node, batch: int) -> View:
    """Where each batch element's m x n result goes: through the one transpose that reads it
    (marked absorbed, so it lowers to nothing), or contiguous."""
    v = node.output
    shape = lw.g.type_of(v).shape
    plain = plain_view(v, shape, np.arange(batch))
    readers = [n for n in lw.g.nodes if v in n.inputs]
    view = get_hook(readers[0].op, "view") if len(readers) == 1 else None
    if view is None or v in lw.g.outputs:
        return plain
    t = readers[0]
    out_shape = lw.g.type_of(t.output).shape
    pos = np.arange(int(np.prod(out_shape))).reshape(out_shape)
    pos = pos.transpose(np.argsort(view(t))).reshape((-1,) + shape[-2:])
    hit = _affine(pos)
    if hit is None or hit[2] != 1:
        return plain
    lw.absorbed.add(t.output)
    lw.tensors.pop(v, None)
    return View(t.output, hit[0], hit[1], 1)

