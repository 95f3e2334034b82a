"""Folding a conv's kernel columns into its input channels (im2col along the width).

A conv with few input channels leaves most of the array's rows idle: every kernel tap is a
pass of depth cin (3 for an RGB stem). Copying the input kw times, each copy shifted by one
column, into the channel axis turns the (kh, kw) kernel over cin channels into a (kh, 1)
kernel over kw * cin channels: kh * ceil(kw * cin / R) passes instead of kh * kw *
ceil(cin / R), for kw times the input's DRAM bytes. After a space-to-depth rewrite the same
copy also does the space-to-depth, so the stem reads its input once per folded column."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .copy_plan import Move, PlannedCopy
from .cost import FIELD_MAX, Hw
from .geometry import ConvGeom, space_to_depth


@dataclass(frozen=True)
class Fold:
    geom: ConvGeom        # the model's conv
    new: ConvGeom         # the (kh', 1) stride-1 conv over the folded input
    sh: int               # space-to-depth factors (1 when the conv had stride 1)
    sw: int
    kw: int               # kernel columns folded (of the stride-1 conv)
    left: int             # its left padding, in (rewritten) pixels
    s2d: object = None    # the SpaceToDepth rewrite, if any
    # the columns folded at the conv's own horizontal stride sw (fold_strided): copy b of
    # output column x is input column x * sw + b - left, and the rows keep their stride
    strided: bool = False

    @property
    def run(self) -> int:
        """Elements of one folded copy's pixel: a rewritten pixel's sw source pixels, or one
        source pixel's channels when strided."""
        return self.geom.cin * (1 if self.strided else self.sw)

    def weights(self, w: np.ndarray) -> np.ndarray:
        w1 = self.s2d.weights(w) if self.s2d is not None else w
        kh, kw, cin, cout = w1.shape
        return np.ascontiguousarray(w1.reshape(kh, 1, kw * cin, cout))


def fold(geom: ConvGeom) -> Fold | None:
    """The folded conv of `geom` (after space-to-depth if strided), or None if it does not
    apply: grouped/dilated, 'valid' widths (the folded conv must keep the output width),
    padding beyond the DMA's 7 zero elements, an image no wider than its padding (a copy
    would load nothing), or a kernel without columns to fold."""
    g, s2d = geom, None
    if (g.sh, g.sw) != (1, 1):
        s2d = space_to_depth(g)
        if s2d is None:
            return None
        g = s2d.new
    if g.groups != 1 or (g.dh, g.dw) != (1, 1) or g.kw == 1 or g.pads[1] + g.pads[3] != \
            g.kw - 1 or max(g.pads[1], g.pads[3]) > FIELD_MAX["pad"] or \
            g.w <= max(g.pads[1], g.pads[3]):  # a copied column would be all padding
        return None
    new = ConvGeom(g.n, g.h, g.w, g.kw * g.cin, g.cout, g.kh, 1, 1, 1,
                   (g.pads[0], 0, g.pads[2], 0))
    if (new.oh, new.ow) != (geom.oh, geom.ow):
        return None
    return Fold(geom, new, geom.sh, geom.sw, g.kw, g.pads[1], s2d)


def fold_strided(geom: ConvGeom) -> Fold | None:
    """The kernel columns of a strided conv folded into its channels at its horizontal stride,
    without space-to-depth: a (kh, 1) conv of vertical stride sh over kw * cin channels and
    the output's width. For an RGB 7x7/2 stem that is 7 passes of 21 channels on a 32-row
    array, against 4 passes of 48 (two blocks of rows each, the second half empty) after
    space-to-depth; or None where it does not apply (stride 1, which fold() covers; grouped,
    dilated, a padding the DMA cannot zero-fill, no columns to fold)."""
    g = geom
    if g.sw == 1 or g.groups != 1 or (g.dh, g.dw) != (1, 1) or g.kw == 1 or \
            max(g.pads[1], g.pads[3]) > FIELD_MAX["pad"] or g.w <= max(g.pads[1], g.pads[3]):
        return None
    # every kernel column must read an image column somewhere (a column all padding would
    # be a copy of nothing: ResNet-50 layer4's 3x3/2 on a 2x2 map at resolution 32)
    if any(all(not 0 <= x * g.sw + b - g.pads[1] < g.w for x in range(g.ow))
           for b in range(g.kw)):
        return None
    new = ConvGeom(g.n, g.h, g.ow, g.kw * g.cin, g.cout, g.kh, 1, g.sh, 1,
                   (g.pads[0], 0, g.pads[2], 0))
    if (new.oh, new.ow) != (g.oh, g.ow):
        return None
    return Fold(geom, new, 1, g.sw, g.kw, g.pads[1], None, strided=True)


@dataclass
class FoldCopyLayer(PlannedCopy):
    """y[n, r, x, (b, ry, rx, c)] = x[n, r*sh + ry, (x + b - left)*sw + rx, c] (zero outside),
    or strided (Fold.strided) y[n, r, x, (b, c)] = x[n, r, x*sw + b - left, c]: per (b, ry)
    and chunk of rows the moves of plan() (copy_plan): one load with zero-padded columns and
    one strided store."""

    f: Fold
    rows: int                    # output rows per chunk
    note: str = "fold kernel columns"

    @property
    def slot(self) -> int:
        """Elements of one piece's slot: rows x the output width of folded pixels."""
        return self.rows * self.f.new.w * self.f.run

    def pieces(self) -> list:
        """(image, b, ry, first row, end row) per load/store pair."""
        f, g = self.f, self.f.new
        return [(n, b, ry, r, min(r + self.rows, g.h)) for n in range(g.n)
                for r in range(0, g.h, self.rows) for b in range(f.kw) for ry in range(f.sh)]

    def columns(self, b: int) -> tuple:
        """(first valid output column, valid count, zero columns before, after) of copy b."""
        f, w = self.f, self.f.new.w
        if f.strided:  # 0 <= x * sw + b - left < the input's width
            lo = max(0, -(-(f.left - b) // f.sw))
            hi = min(w, (f.geom.w - 1 + f.left - b) // f.sw + 1)
        else:
            lo = max(0, f.left - b)
            hi = min(w, w + f.left - b)
        return lo, hi - lo, lo, w - hi

    def source(self, b: int, lo: int) -> int:
        """The input pixel column of copy b's output column lo."""
        f = self.f
        return lo * f.sw + b - f.left if f.strided else (lo + b - f.left) * f.sw

    def plan(self, piece: tuple) -> list:
        """The piece's load (copy b's valid columns of its rows, one folded pixel of row
        phase ry each, the columns outside the image its zero padding) and its store into
        that column's and phase's slice of the channels."""
        f, g, x0 = self.f, self.f.new, self.f.geom
        n, b, ry, r0, r1 = piece
        lo, count, before, after = self.columns(b)
        run = f.run
        src = ((n * x0.h + r0 * f.sh + ry) * x0.w + self.source(b, lo)) * x0.cin
        dst = (n * g.h + r0) * g.w * g.cin + (b * f.sh + ry) * run
        return [Move("load", 0, r1 - r0, count, run, f.sh * x0.w * x0.cin,
                     f.sw * x0.cin if f.strided else run, src, (before, after, 0, 0)),
                Move("store", 0, r1 - r0, g.w, run, g.w * g.cin, g.cin, dst)]


CHUNK_ROWS = 8  # small chunks: the conv's first row tiles can start while the copy goes on


def make_fold_copy(name: str, x: str, y: str, f: Fold, hw: Hw) -> FoldCopyLayer:
    g = f.new
    row = g.w * f.run
    rows = max(1, min(g.h, CHUNK_ROWS, (hw.buffer_elems["ibuf"] // 2) // row))
    return FoldCopyLayer(name, x, y, f, rows)


def with_fold_copy(layer: FoldCopyLayer, conv_est: dict, hw: Hw) -> int:
    """Cycles of the copy and the conv after it: the copy's small chunks let the conv start
    on the first rows, so they overlap, sharing the DRAM port (on one core; split over cores
    a barrier separates them)."""
    g = layer.f.new
    nbytes = 2 * g.n * g.h * g.w * g.cin * hw.act_bytes
    per = layer.slot * hw.act_bytes
    pieces = len(layer.pieces())
    if hw.num_cores > 1:  # a barrier follows the copy (no overlap); loads and stores apart
        share = -(-pieces // hw.num_cores)
        copy = hw.dma_streams({"w": (share, nbytes // 2 // hw.num_cores),
                               "out": (share, nbytes // 2 // hw.num_cores)}, hw.num_cores)
        return copy + conv_est["cycles"]
    copy = hw.dma_streams({"w": (2 * pieces, nbytes)})  # npu/fold_gen's channel
    first = pieces // max(1, -(-g.h // layer.rows))  # pieces of one chunk
    return max(conv_est["cycles"], copy + conv_est["dma"]) + first * 2 * hw.dma(per)
