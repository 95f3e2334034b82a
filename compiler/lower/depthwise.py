"""Depthwise convs with output pixels on the array's columns: per channel, a row-Toeplitz
weight tile (K = R input pixels of an image row x N = R - kw + 1 output pixels) is stationary
and the image rows stream through (`gemm`, m = image rows x row blocks), one pass per kernel
row.

Why: with channels on the columns (the block-diagonal weights of compiler.lower.geometry), a
row of the array feeds one input channel, so at most R of its R x C cells do useful work each
cycle (1/C of peak). Here a row feeds one input pixel, which kw of the N outputs of its image
row use: kw * N / (R * C) of peak (3 * 14 / 256 = 16% for 3x3 on 16x16, 2.6x the
block-diagonal bound). The cost is per-channel fixed work (kh weight preloads and array fills
per channel), so the cost model picks this only for wide maps.

Data: each channel's input is gathered from the NHWC tensor into SRAM as (row block, padded
image row, K) windows by one strided DMA per row block (element stride = the channel count,
like compiler.lower.tconv's transposing gathers: the DMA cost rule charges a transfer by its
bytes); the zero rows above and below each block are written once per slot. The outputs of
a channel come out as (row block, image row, N) and are scattered back to NHWC likewise."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .conv import choose_schedule
from .cost import FIELD_MAX, Hw, channel_map
from .epilogue import Epilogue
from .geometry import ConvGeom
from .layer import DepthwiseWork

SYNC_CYCLES = 8  # waits, signal and cfgs per matrix instruction (as compiler.lower.conv)


@dataclass(frozen=True)
class DwSchedule:
    n: int            # output pixels per row block (the gemm's n)
    k: int            # input pixels per window (the gemm's k): n + kw - 1
    blocks: int       # row blocks per image row: ow / n
    hp: int           # padded input rows per block in SRAM: h + pad top + pad bottom
    m: int            # rows a kernel-row pass streams: every block's output rows and the
    #                   padding rows between blocks (whose outputs are never stored)
    group: int        # channels per weight load
    est: dict = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        return (f"row-toeplitz: n={self.n} k={self.k} blocks={self.blocks} "
                f"channels/weight load={self.group}")


@dataclass
class DepthwiseLayer(DepthwiseWork):
    """A depthwise conv lowered channel by channel onto row-Toeplitz weights."""

    schedule: DwSchedule | None = None
    note: str = "row-toeplitz depthwise"

    def channels(self) -> list:
        return list(range(self.geom.cout))

    def toeplitz(self, c: int) -> np.ndarray:
        """Channel c's stationary tiles (kh, k, n): T[ky, i, j] = w[ky, i - j, c] where
        0 <= i - j < kw (input pixel i of a window, output pixel j of its block)."""
        g, s = self.geom, self.schedule
        out = np.zeros((g.kh, s.k, s.n), self.weights.dtype)
        for kx in range(g.kw):
            j = np.arange(s.n)
            out[:, j + kx, j] = self.weights[:, kx, 0, c][:, None]
        return out

    def window(self, b: int) -> tuple:
        """(first image column read, zero pixels before, pixels read, zero pixels after) of
        row block b's window of k pixels."""
        g, s = self.geom, self.schedule
        start = b * s.n - g.pads[1]
        lo, hi = max(start, 0), min(start + s.k, g.w)
        return lo, lo - start, hi - lo, start + s.k - hi


def applies(g: ConvGeom, epi: Epilogue, hw: Hw) -> bool:
    """A plain depthwise conv (one channel per group, stride and dilation 1, one image) whose
    output width splits into whole blocks and whose padding the DMA can write."""
    return (g.groups == g.cin == g.cout and g.groups > 1 and (g.sh, g.sw, g.dh, g.dw) ==
            (1, 1, 1, 1) and g.n == 1 and not epi.residual
            and g.kw < hw.rows and _block_width(g, hw) is not None
            and max(g.pads[1], g.pads[3]) <= FIELD_MAX["pad"])


def store_role(engines: int) -> str:
    """The DMA role the output scatters go by: 'out', unless that shares the gathers'
    channel (two engines) while the weight channel idles (a load per `group` channels):
    a gather and a scatter per row block and channel are many short transfers, bound by
    their fixed costs, so they go on different engines."""
    cm = channel_map(engines)
    return "w" if cm["out"] == cm["in"] != cm["w"] else "out"


def _block_width(g: ConvGeom, hw: Hw) -> int | None:
    """The widest n <= R - kw + 1 (and <= array columns) dividing the output width, or None
    below half of that (narrow blocks waste the array's rows)."""
    top = min(hw.rows - g.kw + 1, hw.cols)
    for n in range(min(top, g.ow), 0, -1):
        if g.ow % n == 0:
            return n if 2 * n >= min(top, g.ow) else None
    return None


def choose_depthwise(g: ConvGeom, epi: Epilogue, hw: Hw,
                     table_channels: int | None = None) -> DwSchedule | None:
    """The row-Toeplitz schedule with its estimated cycles, or None where it does not apply
    or its tiles do not fit."""
    if not applies(g, epi, hw):
        return None
    eb, elems = hw.act_bytes, hw.buffer_elems
    n = _block_width(g, hw)
    k = n + g.kw - 1
    blocks = g.ow // n
    hp = g.h + g.pads[0] + g.pads[2]
    m = (blocks - 1) * hp + g.oh
    if m > FIELD_MAX["m"] or m * n > FIELD_MAX["len"] or g.h > FIELD_MAX["planes"] or \
            max(g.pads[0], g.pads[2]) > hp:
        return None
    a_tile, acc_tile = blocks * hp * k, m * n
    table = epi.table_words(g.cout if table_channels is None else table_channels)
    w_chan = g.kh * k * n
    group = min(g.cout, max(1, (elems["wbuf"] // 2) // w_chan), 64)
    if 2 * a_tile > elems["ibuf"] or 2 * acc_tile + table > elems["abuf"] or \
            2 * acc_tile > elems["obuf"] or group < 1:
        return None
    c = g.cout
    pass_cycles = hw.gemm(m, k, n)
    matrix = c * g.kh * (pass_cycles + SYNC_CYCLES)
    vector = c * epi.cycles(hw, acc_tile)
    loads = -(-c // group)
    in_bytes = c * blocks * g.h * k * eb
    out_bytes = c * g.oh * g.ow * eb
    streams = {"in": (c * blocks + 2, in_bytes + 2 * a_tile * eb),
               "w": (loads + 1, c * w_chan * eb + table * 4), "out": (0, 0), "res": (0, 0)}
    out = streams[store_role(hw.dma_engines)]
    streams[store_role(hw.dma_engines)] = (out[0] + c * blocks, out[1] + out_bytes)
    dma = hw.dma_streams(streams, hw.num_cores)
    start = hw.dma(a_tile * eb) + hw.dma(group * w_chan * eb) + \
        hw.dma(g.h * k * eb) * blocks
    tail = epi.cycles(hw, acc_tile) + blocks * hw.dma(g.oh * n * eb, mnemonic="store")
    total = max(matrix, vector, dma) + start + tail
    instrs = c * (g.kh + blocks * 2 + len(epi.vector_ops())) + loads
    return DwSchedule(n, k, blocks, hp, m, group, {
        "cycles": total, "matrix": matrix, "vector": vector, "dma": dma,
        "dram_bytes": in_bytes + out_bytes + c * w_chan * eb, "instructions": instrs})


def depthwise_candidate(lw, name: str, x: str, y: str, geom: ConvGeom, w: np.ndarray,
                        epi: Epilogue) -> tuple | None:
    """(estimated cycles, [layer]) of the row-Toeplitz lowering where it beats the
    block-diagonal conv, else None. Split over cores by channels: both are estimated for one
    core's share (the plain candidate's estimate of a grouped conv is the whole layer's, one
    core's work, so it cannot be the yardstick on several cores)."""
    if not applies(geom, epi, lw.hw):
        return None
    cores = lw.hw.num_cores
    share = -(-geom.cout // cores)
    g = geom if cores == 1 else replace(geom, cin=share, cout=share, groups=share)
    s = choose_depthwise(g, epi, lw.hw, table_channels=geom.cout)
    if s is None:
        return None
    plain = choose_schedule(g, epi, lw.hw, name, table_channels=geom.cout)
    if s.est["cycles"] >= plain.est["cycles"]:
        return None
    return s.est["cycles"], [DepthwiseLayer(name, x, y, geom, w, epi, s)]
