"""A small-cin conv as a 1x1 conv over its im2col'd input (the kh x kw x cin window as channels).

The array's hardware im2col makes one weight-stationary pass per kernel tap and block of R
input channels: an RGB stem's 7 x 7 taps are 49 passes of depth 3 (16 of depth 12 after
space-to-depth, 12 of depth 16 with kernel columns folded). Copying every output pixel's
window into the channel axis first (SCALE-Sim's operand matrix: M = oh * ow rows of K = kh *
kw * cin) makes it a 1x1 conv of ceil(K / R) passes, for a copy that writes and the conv that
reads M x K bytes. The copy goes by kernel row: for each (image, kernel row, chunk of output
rows) one strided load of the windows' rows (kw * cin contiguous elements each, one every sw
pixels), its store into that kernel row's slice of the channels, and, at the borders, loads
of the part inside the image and stores of zeros (from a zero slot loaded once per core). The
cost model keeps it only where it estimates it faster than the other rewrites.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

import numpy as np

from .copy_plan import Move, PlannedCopy
from .cost import FIELD_MAX, Hw
from .geometry import ConvGeom

CHUNK_ROWS = 16  # output rows per piece: the conv's first row tiles start while the copy goes on


@dataclass(frozen=True)
class Im2col:
    geom: ConvGeom        # the model's conv
    new: ConvGeom         # the 1x1 stride-1 conv over the im2col'd input

    @property
    def y_shape(self) -> tuple:
        n = self.new
        return (n.n, n.h, n.w, n.cin)

    def weights(self, w: np.ndarray) -> np.ndarray:
        """(kh, kw, cin, cout) -> (1, 1, kh * kw * cin, cout): channel (ky * kw + kx) * cin + c."""
        kh, kw, cin, cout = w.shape
        return np.ascontiguousarray(w.reshape(1, 1, kh * kw * cin, cout))


def im2col(geom: ConvGeom, rows: int) -> Im2col | None:
    """The im2col'd conv of `geom`, or None where it does not apply or cannot pay on an array
    of `rows` rows: grouped or column-dilated convs, a window too deep for the conv's cin
    field or a DMA row, or one that takes no fewer passes than the taps do."""
    g = geom
    k = g.kh * g.kw * g.cin
    if g.groups != 1 or g.dw != 1 or (g.kh, g.kw) == (1, 1) or k > FIELD_MAX["cin"] or \
            g.kw * g.cin > FIELD_MAX["cols"] or g.ow > FIELD_MAX["rows"]:
        return None
    if ceil(k / rows) >= g.kh * g.kw * ceil(g.cin / rows):
        return None
    return Im2col(g, ConvGeom(g.n, g.oh, g.ow, k, g.cout, 1, 1))


@dataclass
class Im2colCopyLayer(PlannedCopy):
    """y[n, oy, ox, (ky, kx, c)] = x[n, oy*sh + ky*dh - top, ox*sw + kx - left, c] (zero
    outside): per (image, kernel row, chunk of output rows) the moves of plan() (copy_plan)."""

    im: Im2col
    rows: int                    # output rows per chunk
    note: str = "im2col"

    @property
    def slot(self) -> int:
        """Elements of one piece's slot: rows x ow windows' rows of kw * cin."""
        g = self.im.geom
        return self.rows * g.ow * g.kw * g.cin

    @property
    def zeros(self) -> int:
        """Elements of the zero slot: the largest zero store (an output row's, or a chunk's
        border windows', kernel row)."""
        g = self.im.geom
        return max(g.ow, self.rows) * g.kw * g.cin

    def pieces(self) -> list:
        """(image, kernel row, first output row, end row) per piece."""
        g = self.im.geom
        return [(n, ky, r, min(r + self.rows, g.oh)) for n in range(g.n)
                for r in range(0, g.oh, self.rows) for ky in range(g.kh)]

    def plan(self, piece: tuple) -> list:
        """The moves of one piece, loads before the stores that read them."""
        g = self.im.geom
        n, ky, r0, r1 = piece
        c, run, kk = g.cin, g.kw * g.cin, g.kh * g.kw * g.cin
        top, left = g.pads[0], g.pads[1]
        # output rows whose input row is inside the image: a range, as iy grows with oy
        valid = [oy for oy in range(r0, r1) if 0 <= oy * g.sh + ky * g.dh - top < g.h]
        v0, v1 = (valid[0], valid[-1] + 1) if valid else (r1, r1)
        out_row = lambda oy: (n * g.oh + oy) * g.ow * kk + ky * run  # noqa: E731
        moves, at = [], 0
        for lo, hi in ((r0, v0), (v1, r1)):  # rows of padding only
            for oy in range(lo, hi):
                moves.append(Move("store", 0, 1, g.ow, run, 0, kk, out_row(oy), zero=True))
        if v0 == v1:
            return moves
        nv = v1 - v0
        src_row = (n * g.h + v0 * g.sh + ky * g.dh - top) * g.w * c
        pstride = g.sh * g.w * c
        a = min(g.ow, ceil(left / g.sw))                        # first window inside
        b = max(a, min(g.ow, (g.w + left - g.kw) // g.sw + 1))  # end of those inside
        stores = []
        if b > a:
            ld = Move("load", at, nv, b - a, run, pstride, g.sw * c,
                      src_row + (a * g.sw - left) * c)
            moves.append(ld)
            stores.append(Move("store", at, nv, b - a, run, g.ow * kk, kk, out_row(v0) + a * kk))
            at += ld.count
        for ox in [*range(a), *range(b, g.ow)]:  # windows across the left or right border
            x0 = ox * g.sw - left
            k0, k1 = max(0, -x0), min(g.kw, g.w - x0)
            dst = out_row(v0) + ox * kk
            if k1 <= k0:  # all padding
                stores += [Move("store", 0, 1, nv, run, 0, g.ow * kk, dst, zero=True)]
                continue
            pl, pr = k0 * c, (g.kw - k1) * c
            if max(pl, pr) <= FIELD_MAX["pad"]:  # the load's zero padding fills the border
                ld = Move("load", at, nv, 1, (k1 - k0) * c, pstride, 0, src_row + (x0 + k0) * c,
                          (0, 0, pl, pr))
                stores.append(Move("store", at, 1, nv, run, 0, g.ow * kk, dst))
            else:  # data from the load, zeros from the zero slot
                ld = Move("load", at, nv, 1, (k1 - k0) * c, pstride, 0, src_row + (x0 + k0) * c)
                stores.append(Move("store", at, 1, nv, (k1 - k0) * c, 0, g.ow * kk, dst + pl))
                for off, cnt in ((0, pl), (k1 * c, pr)):
                    if cnt:
                        stores.append(Move("store", 0, 1, nv, cnt, 0, g.ow * kk, dst + off,
                                           zero=True))
            moves.append(ld)
            at += ld.count
        return moves + stores


def make_im2col_copy(name: str, x: str, y: str, im: Im2col, hw: Hw) -> Im2colCopyLayer | None:
    """The copy with the most rows per chunk (at most CHUNK_ROWS) whose two slots and zero
    slot fit ibuf (npu/im2col_gen puts them where the conv leaves room); None if none does."""
    g = im.geom
    for rows in range(min(g.oh, CHUNK_ROWS), 0, -1):
        layer = Im2colCopyLayer(name, x, y, im, rows)
        if 2 * layer.slot + layer.zeros <= hw.buffer_elems["ibuf"]:
            return layer
    return None


def copy_dmas(layer: Im2colCopyLayer) -> int:
    """DMAs of the whole copy: every piece's moves, and the zero slot's load."""
    return sum(len(layer.plan(p)) for p in layer.pieces()) + 1


def with_im2col_copy(layer: Im2colCopyLayer, conv_est: dict, hw: Hw) -> int:
    """Cycles of the copy and the conv after it, counted one after the other: its loads read
    and its stores write M x K bytes each, on DMA queues that run in order, so the conv's
    own loads (its weights among them) wait behind the copy's; as the 224 x 224 stem on
    npu-edge (16 B/cycle) measured, the conv overlaps little of it (721,501 cycles simulated
    against 543,350 estimated with full overlap and 538,430 + 325,953 serial). So the copy is
    chosen where it wins outright: a wide DRAM port, or many passes saved."""
    g = layer.im.new
    nbytes = 2 * g.n * g.h * g.w * g.cin * hw.act_bytes
    return conv_est["cycles"] + hw.dma_streams({"w": (copy_dmas(layer), nbytes)})
