"""Convolution geometry: output sizes, input rows of an output-row tile, grouped channel ranges,
block-diagonal weights for grouped/depthwise convs and the space-to-depth rewrite."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from isa.semantics import conv_out_size


@dataclass(frozen=True)
class ConvGeom:
    """One conv over NHWC int8/fp16 input: (n, h, w, cin) * (kh, kw, cin/groups, cout)."""

    n: int
    h: int
    w: int
    cin: int
    cout: int
    kh: int
    kw: int
    sh: int = 1
    sw: int = 1
    pads: tuple = (0, 0, 0, 0)  # top, left, bottom, right (as isa.semantics)
    dh: int = 1
    dw: int = 1
    groups: int = 1

    # cached: the tile choosers read them some 10^4 times per model (a frozen dataclass
    # still has an instance dict for cached_property; equality and hashing use the fields)
    @functools.cached_property
    def oh(self) -> int:
        return conv_out_size(self.h, self.kh, self.sh, self.pads[0], self.pads[2], self.dh)

    @functools.cached_property
    def ow(self) -> int:
        return conv_out_size(self.w, self.kw, self.sw, self.pads[1], self.pads[3], self.dw)

    @property
    def macs(self) -> int:
        return self.n * self.oh * self.ow * self.kh * self.kw * (self.cin // self.groups) \
            * self.cout

    def weights_bytes(self, eb: int) -> int:
        return self.kh * self.kw * (self.cin // self.groups) * self.cout * eb

    def cin_range(self, c0: int, c1: int) -> tuple:
        """Input channels [lo, hi) that output channels [c0, c1) read (their groups)."""
        cin_g, cout_g = self.cin // self.groups, self.cout // self.groups
        return (c0 // cout_g) * cin_g, ((c1 - 1) // cout_g + 1) * cin_g

    def in_rows(self, r0: int, r1: int) -> tuple:
        """(first input row, end row, implicit zero rows above, below) of output rows [r0, r1)."""
        span = self.dh * (self.kh - 1) + 1
        lo = r0 * self.sh - self.pads[0]
        hi = (r1 - 1) * self.sh - self.pads[0] + span
        i0, i1 = max(lo, 0), min(hi, self.h)
        return i0, i1, i0 - lo, hi - i1


def block_weights(w: np.ndarray, geom: ConvGeom, c0: int, c1: int) -> np.ndarray:
    """Weights (kh, kw, hi - lo, c1 - c0) of output channels [c0, c1) over their input range:
    dense convs slice; grouped convs get zeros between groups (a block-diagonal matrix), which
    is how the array, which has no grouped mode, runs depthwise convolutions."""
    if geom.groups == 1:
        return np.ascontiguousarray(w[:, :, :, c0:c1])
    lo, hi = geom.cin_range(c0, c1)
    cin_g, cout_g = geom.cin // geom.groups, geom.cout // geom.groups
    out = np.zeros((geom.kh, geom.kw, hi - lo, c1 - c0), w.dtype)
    for co in range(c0, c1):
        g = co // cout_g
        base = g * cin_g - lo
        out[:, :, base:base + cin_g, co - c0] = w[:, :, :, co]
    return out


@dataclass(frozen=True)
class SpaceToDepth:
    """A strided conv rewritten as a stride-1 conv over a space-to-depth input: input pixel
    (y*sh + ry, x*sw + rx, c) moves to (y, x, (ry*sw + rx)*cin + c). The array then sees
    sh*sw times the channels in 1/(sh*sw) of the passes (the 7x7/2 stem on 3 channels:
    16 passes of depth 12 instead of 49 of depth 3)."""

    geom: ConvGeom       # the original conv
    new: ConvGeom        # the stride-1 conv over the rewritten input
    jmin: tuple          # first kernel offset (rows, cols) in rewritten pixels

    def weights(self, w: np.ndarray) -> np.ndarray:
        g, n = self.geom, self.new
        out = np.zeros((n.kh, n.kw, n.cin, n.cout), w.dtype)
        for a in range(n.kh):
            for ry in range(g.sh):
                ty = g.sh * (self.jmin[0] + a) + ry + g.pads[0]
                if not 0 <= ty < g.kh:
                    continue
                for b in range(n.kw):
                    for rx in range(g.sw):
                        tx = g.sw * (self.jmin[1] + b) + rx + g.pads[1]
                        if 0 <= tx < g.kw:
                            c = (ry * g.sw + rx) * g.cin
                            out[a, b, c:c + g.cin, :] = w[ty, tx, :, :]
        return out

    def permute(self) -> tuple:
        """(input shape as 6-D view, permutation) giving the rewritten input from NHWC."""
        g = self.geom
        shape = (g.n, g.h // g.sh, g.sh, g.w // g.sw, g.sw, g.cin)
        return shape, (0, 1, 3, 2, 4, 5)


def space_to_depth(geom: ConvGeom) -> SpaceToDepth | None:
    """The rewrite of `geom`, or None where it does not apply (stride 1, groups, dilation,
    sizes not divisible by the stride, or padding the rewrite cannot express)."""
    g = geom
    if (g.sh, g.sw) == (1, 1) or g.groups != 1 or (g.dh, g.dw) != (1, 1) \
            or g.h % g.sh or g.w % g.sw:
        return None
    # input row y*sh - top + t = sh*J + r: the kernel spans rewritten rows jmin..jmax
    jmin = ((-g.pads[0]) // g.sh, (-g.pads[1]) // g.sw)
    jmax = ((g.kh - 1 - g.pads[0]) // g.sh, (g.kw - 1 - g.pads[1]) // g.sw)
    kh, kw = jmax[0] - jmin[0] + 1, jmax[1] - jmin[1] + 1
    h, w = g.h // g.sh, g.w // g.sw
    top, left = -jmin[0], -jmin[1]
    bottom, right = g.oh - 1 + kh - h - top, g.ow - 1 + kw - w - left
    if min(bottom, right) < 0:
        return None
    new = ConvGeom(g.n, h, w, g.cin * g.sh * g.sw, g.cout, kh, kw, 1, 1,
                   (top, left, bottom, right))
    if (new.oh, new.ow) != (g.oh, g.ow):
        return None
    return SpaceToDepth(g, new, jmin)


def subsample(geom: ConvGeom) -> ConvGeom | None:
    """A strided 1x1 conv without padding above or left reads only every sh-th row and sw-th
    column: the same conv at stride 1 over the subsampled input, which the DMA gathers with
    its strides (a quarter of the bytes of the full rows for stride 2). Windows past the
    input's bottom or right edge (SCALE-Sim's ceil((H - 1 + S) / S) outputs) stay the conv's
    own zero padding there."""
    g = geom
    if (g.kh, g.kw) != (1, 1) or (g.sh, g.sw) == (1, 1) or g.pads[0] or g.pads[1] or \
            g.groups != 1:
        return None
    h, w = -(-g.h // g.sh), -(-g.w // g.sw)  # the input rows and columns a window reads
    return ConvGeom(g.n, h, w, g.cin, g.cout, 1, 1, pads=(0, 0, g.oh - h, g.ow - w))
