"""The C-like kernel of a strided gather (slice, broadcast, nearest upsampling): one point per
output element, its source index rebuilt from the layer's DMA plan as per-axis terms."""

from __future__ import annotations

import numpy as np

from ...errors import CompilerError
from ...lower.copy import CopyLayer
from .kernel import ELEM_BYTES, SpaceKernel
from .registry import register_kernel

INDEX_MAX = 2**31 - 1  # the tables hold int32 source offsets


def source_map(layer: CopyLayer, numel_x: int, numel_y: int) -> np.ndarray:
    """src[i]: the input element that output element i copies, replaying the layer's chunks
    (each load fills the chunk's SRAM slots from the input, each store empties them into the
    output) - the NPU's own plan, so every backend copies the same elements."""
    src = np.full(numel_y, -1, dtype=np.int64)
    for chunk in layer.chunks:
        slots = np.full(chunk.elems, -1, dtype=np.int64)
        for d in chunk.loads:
            slots[d.sram:d.sram + d.count] = _box(d).ravel()
        for d in chunk.stores:
            src[_box(d).ravel()] = slots[d.sram:d.sram + d.count]
    bad = np.flatnonzero((src < 0) | (src >= numel_x))
    if bad.size:
        raise CompilerError(f"layer '{layer.name}': its DMA plan leaves output element "
                            f"{int(bad[0])} of {numel_y} unwritten or reads outside the "
                            f"{numel_x} input elements; the lowering's chunks are inconsistent")
    if numel_x > INDEX_MAX:
        raise CompilerError(f"layer '{layer.name}': a gather from {numel_x} elements; its "
                            f"int32 index tables reach {INDEX_MAX}; split the tensor")
    return src


def _box(d) -> np.ndarray:
    """The DRAM element offsets of one transfer, in its SRAM order (planes, rows, cols)."""
    return (d.dram + np.arange(d.planes)[:, None, None] * d.plane_stride
            + np.arange(d.rows)[None, :, None] * d.stride + np.arange(d.cols)[None, None, :])


def axis_terms(src: np.ndarray, shape: tuple) -> tuple | None:
    """(base, [term per axis]) with src = base + sum of term_k[i_k] over the output axes, or
    None where the map does not separate (then one index per element is needed)."""
    grid = src.reshape(shape)
    base = int(grid.flat[0])
    terms = [grid[tuple(slice(None) if a == k else 0 for a in range(len(shape)))] - base
             for k in range(len(shape))]
    total = np.full(shape, base, dtype=np.int64)
    for k, t in enumerate(terms):
        total = total + t.reshape([-1 if a == k else 1 for a in range(len(shape))])
    return (base, terms) if np.array_equal(total, grid) else None


@register_kernel("gather")
def gather(self, name: str, layer: CopyLayer):
    """y[i] = x[src(i)]: an affine axis is `d * stride` in the index, any other axis (the
    repeated and clamped pixels of an upsampling) a small int32 table of its extent."""
    y = self.lowered.tensor(layer.y)
    shape = tuple(y.shape) or (1,)
    src = source_map(layer, self.numel(layer.x), self.numel(layer.y))
    dst = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
    dims = [(f"d{k}", n) for k, n in enumerate(shape) if n > 1] or [("d0", 1)]
    used = {v for v, _ in dims}
    d_idx = " + ".join(f"(long)d{k} * {dst[k]}" for k in range(len(shape))
                       if f"d{k}" in used) or "0"
    args, parts, tables = [self.act(layer.x, "x")], [], 0
    sep = axis_terms(src, shape)
    if sep is None:  # one source index per output element
        args.append(self.const(f"{name}.src", "src", src.astype(np.int32)))
        parts.append(self.r.op("load", "src", d_idx))
        tables = src.size
    else:
        base, terms = sep
        parts += [str(base)] if base else []
        for k, t in enumerate(terms):
            if f"d{k}" not in used or not t.any():
                continue
            step = int(t[1])
            if np.array_equal(t, np.arange(t.size) * step):
                parts.append(f"(long)d{k} * {step}")
            else:
                args.append(self.const(f"{name}.t{k}", f"t{k}", t.astype(np.int32)))
                parts.append(self.r.op("load", f"t{k}", f"d{k}"))
                tables += t.size
    args.append(self.act(layer.y, "y", True))
    s_idx = " + ".join(parts) or "0"
    eb = ELEM_BYTES[self.dtype(layer.y)]
    reads = int(np.unique(src).size)
    return SpaceKernel(name=name, layer=layer.name, args=args, flops=0,
                       nbytes=(reads + src.size) * eb + 4 * tables,
                       note=f"gather {tuple(self.lowered.tensor(layer.x).shape)} -> {shape}"
                            + (f", {tables} index entries" if tables else ""),
                       dims=dims, body=[f"y[{d_idx}] = {self.r.op('load', 'x', s_idx)};"])
