"""Data movement through SRAM: a tensor permutation (layout change, space-to-depth,
transpose) planned as chunks of strided DMA loads and stores, fewest transfers first."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import prod

from ..errors import CompilerError
from .cost import FIELD_MAX, Hw
from .layer import OneInput

DIM_MAX = min(FIELD_MAX["rows"], FIELD_MAX["cols"], FIELD_MAX["planes"])  # of one DMA


@dataclass(frozen=True)
class Dma:
    """One strided transfer, in elements: DRAM offset, planes x rows x cols with the DRAM
    strides between planes and rows; `sram` is the offset inside the chunk."""

    dram: int
    planes: int
    plane_stride: int
    rows: int
    stride: int
    cols: int
    sram: int

    @property
    def count(self) -> int:
        return self.planes * self.rows * self.cols


@dataclass(frozen=True)
class Chunk:
    elems: int
    loads: tuple
    stores: tuple


@dataclass
class CopyLayer(OneInput):
    """y = transpose(x.reshape(shape), perm), contiguous; `chunks` is the DMA plan."""

    name: str
    x: str
    y: str
    shape: tuple
    perm: tuple
    chunks: list = field(default_factory=list)
    kind: str = "copy"
    note: str = ""
    introduced: bool = False   # made by a rewrite, not a model layer (no roofline of its own)


def _strides(shape) -> list:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return out[::-1]


def _merge(dims: list) -> list:
    """Merge neighbours of an inner->outer list of (n, src stride, dst stride) that are
    contiguous on both sides."""
    out = []
    for n, s, d in dims:
        if out and s == out[-1][0] * out[-1][1] and d == out[-1][0] * out[-1][2]:
            out[-1] = (out[-1][0] * n, out[-1][1], out[-1][2])
        else:
            out.append((n, s, d))
    return out


def _split(dims: list) -> list | None:
    """Split dims longer than a DMA field allows into (divisor <= DIM_MAX) x rest."""
    out = []
    for n, s in dims:
        while n > DIM_MAX:
            a = next((a for a in range(DIM_MAX, 1, -1) if n % a == 0), None)
            if a is None:
                return None
            out.append((a, s))
            n, s = n // a, s * a
        out.append((n, s))
    return out


def _fit(dims: list, limit: int) -> list:
    """Split dims (outer->inner) longer than `limit` into (rest, divisor) so chunks can fit."""
    out = []
    for n, s, d in dims:
        parts = []
        while n > limit:
            a = next((a for a in range(limit, 1, -1) if n % a == 0), None)
            if a is None:
                break
            parts.append((a, s, d))
            n, s, d = n // a, s * a, d * a
        out += [(n, s, d)] + parts[::-1]
    return out


def _cover(dims: list) -> tuple | None:
    """(covered dims as (cols, rows, planes) in (n, stride), uncovered) of one side."""
    merged = []
    for n, s in dims:
        if merged and s == merged[-1][0] * merged[-1][1]:
            merged[-1] = (merged[-1][0] * n, merged[-1][1])
        else:
            merged.append((n, s))
    merged = _split(merged)
    if merged is None:
        return None
    if merged and merged[0][1] == 1:
        return merged[:3], merged[3:]
    return [(1, 1)] + merged[:2], merged[2:]


def plan_copy(shape: tuple, perm: tuple, capacity: int, name: str = "") -> list:
    """Chunks of loads/stores moving A (row-major `shape`) to B = A.transpose(perm)."""
    sa, sb = _strides(shape), _strides([shape[p] for p in perm])
    dims = [(shape[p], sa[p], sb[i]) for i, p in enumerate(perm) if shape[p] > 1]
    return plan_strided(dims, capacity, name=name, what=f"of shape {shape} permuted {perm}")


def plan_strided(dims: list, capacity: int, src_base: int = 0, name: str = "",
                 what: str = "", dst_base: int = 0) -> list:
    """Chunks of loads/stores over `dims`, outer -> inner (count, source stride, destination
    stride) in elements, from `src_base` to `dst_base`: a permutation, a slice (an offset
    and the source's strides) or a broadcast (source stride 0: DMA reads repeat)."""
    shape_note = what or f"over dims {dims}"
    dims = [d for d in dims if d[0] > 1]
    dims = _merge(dims[::-1])[::-1]           # outer -> inner, merged where both agree
    if not dims:
        dims = [(1, 1, 1)]
    dims = _fit(dims, min(capacity, DIM_MAX))
    best = None
    for order in itertools.permutations(range(len(dims))):
        ds = [dims[i] for i in order]               # outer -> inner
        for c in range(1, len(ds) + 1):
            chunk = ds[len(ds) - c:]
            elems = prod(d[0] for d in chunk)
            if elems > capacity:
                continue
            inner = chunk[::-1]
            load = _cover([(d[0], d[1]) for d in inner])
            store = _cover([(d[0], d[2]) for d in inner])
            if load is None or store is None:
                continue
            n_chunks = prod(d[0] for d in ds[:len(ds) - c])
            per = prod(n for n, _ in load[1]) + prod(n for n, _ in store[1])
            cost = (n_chunks * per, n_chunks)
            if best is None or cost < best[0]:
                best = (cost, ds, c)
    if best is None:
        raise CompilerError(f"layer '{name}': cannot plan the data movement {shape_note} "
                            f"in chunks of {capacity} elements")
    _, ds, c = best
    outer, chunk = ds[:len(ds) - c], ds[len(ds) - c:]
    inner = chunk[::-1]
    elems = prod(d[0] for d in chunk)
    chunks = []
    for idx in itertools.product(*(range(d[0]) for d in outer)):
        src0 = src_base + sum(i * d[1] for i, d in zip(idx, outer))
        dst0 = dst_base + sum(i * d[2] for i, d in zip(idx, outer))
        chunks.append(Chunk(elems, tuple(_dmas([(d[0], d[1]) for d in inner], src0)),
                            tuple(_dmas([(d[0], d[2]) for d in inner], dst0))))
    return chunks


def _dmas(inner: list, base: int) -> list:
    (cols, rows, planes), rest = _pad3(_cover(inner))
    block = cols[0] * rows[0] * planes[0]
    out = []
    for k, idx in enumerate(itertools.product(*(range(n) for n, _ in reversed(rest)))):
        off = base + sum(i * s for i, (n, s) in zip(idx, reversed(rest)))
        out.append(Dma(off, planes[0], planes[1], rows[0], rows[1], cols[0], k * block))
    return out


def _pad3(cover):
    cov, rest = cover
    cov = list(cov) + [(1, 0)] * (3 - len(cov))
    return cov, rest


def copy_cycles(chunks: list, hw: Hw) -> int:
    half = sum(c.elems for c in chunks) * hw.act_bytes
    return hw.dma_streams({"in": (sum(len(c.loads) for c in chunks), half),
                           "out": (sum(len(c.stores) for c in chunks), half)}) + \
        2 * hw.dma(chunks[0].elems * hw.act_bytes)
