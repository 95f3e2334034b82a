"""What one instruction reads and writes, as the race detector sees it: SRAM element ranges
from isa.operands.extents and a DMA's DRAM bytes as a strided span."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from isa.operands import dram_end, extents

# operands whose extent an instruction writes (the rest it reads); a matrix op also reads its
# abuf when it accumulates (acc=1), a load writes its sram side, a store reads it
_WRITTEN = frozenset({"dst", "abuf"})


class DramSpan(NamedTuple):
    """DRAM bytes of one load/store: planes x rows rows of `width` bytes, as the DMA's address
    generator steps them (rows `stride` bytes apart, planes `plane_stride` apart). A tuple, so
    the detector compares two spans at C speed."""

    base: int
    planes: int
    plane_stride: int
    rows: int
    stride: int
    width: int
    lo: int
    hi: int  # one past the last byte (isa.operands.dram_end)

    @property
    def contiguous(self) -> bool:
        return self.hi - self.lo == self.planes * self.rows * self.width

    def row_starts(self) -> tuple[np.ndarray, int]:
        """(sorted start byte of every row, row width); one row when the span has no gaps."""
        if self.contiguous:
            return np.array([self.lo], dtype=np.int64), self.hi - self.lo
        starts = (self.base + np.arange(self.planes, dtype=np.int64)[:, None] * self.plane_stride
                  + np.arange(self.rows, dtype=np.int64)[None, :] * self.stride)
        return np.sort(starts, axis=None), self.width


def span_overlap(a: DramSpan, b: DramSpan) -> tuple[int, int] | None:
    """The first [lo, hi) byte range both spans touch, or None: rows are compared, not the
    spans' bounding ranges, so two cores writing interleaved slices of a tensor do not meet."""
    if a.hi <= b.lo or b.hi <= a.lo:
        return None
    if a.contiguous and b.contiguous:
        return max(a.lo, b.lo), min(a.hi, b.hi)
    sa, wa = a.row_starts()
    sb, wb = b.row_starts()
    # a row of a at x meets a row of b starting in (x - wb, x + wa)
    idx = np.searchsorted(sb, sa - wb, side="right")
    safe = np.minimum(idx, sb.size - 1)
    hit = (idx < sb.size) & (sb[safe] < sa + wa)
    if not hit.any():
        return None
    k = int(np.argmax(hit))
    x, y = int(sa[k]), int(sb[idx[k]])
    return max(x, y), min(x + wa, y + wb)


def accesses(instr, state) -> tuple[list, DramSpan | None, bool]:
    """([(buffer, lo, hi, written)] SRAM element ranges, the DRAM span or None, whether the
    instruction writes that span) of a data instruction; ([], None, False) for the others."""
    spec = instr.spec
    f = instr.fields
    if spec.cls == "dma":
        chan_regs = state.regs[f"dma{f['chan']}"]
        buf = state.buf_names[f["buf"]]
        count = extents(instr, chan_regs)["sram"].count
        load = spec.ref == "dma_load"
        planes, plane_stride = chan_regs["dma_planes"], chan_regs["dma_plane_stride"]
        eb = state.elem_bytes[buf]
        span = DramSpan(f["dram"], planes, plane_stride, f["rows"], f["stride"], f["cols"] * eb,
                        f["dram"], dram_end(f, planes, plane_stride, eb))
        return [(buf, f["sram"], f["sram"] + count, load)], span, not load
    if spec.cls not in ("matrix", "vector"):
        return [], None, False
    out = []
    for name, extent in extents(instr, state.regs[spec.cls]).items():
        buf = state.buf_names[f[name + "_buf"]] if name + "_buf" in f else name
        lo = f[name]
        written = name in _WRITTEN
        if written and f.get("acc"):
            out.append((buf, lo, lo + extent.count, False))
        out.append((buf, lo, lo + extent.count, written))
    return out, None, False
