"""DMA stimulus: 2-D/3-D strided loads (with zero padding) and stores, directed and seeded random."""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from isa.codec import encode_fields
from isa import timing
from rtl_tests.tb.stimulus import GUARD, TYPE_RANGE, Case, guarded, ints, place

ELEM_BYTES = {"ibuf": 1, "wbuf": 1, "obuf": 1, "abuf": 4}


@dataclass(frozen=True)
class Tile:
    """The geometry of one transfer; pads (top, bottom, left, right) only for loads."""

    buf: str
    rows: int
    cols: int
    stride: int            # DRAM bytes between rows
    planes: int = 1
    plane_stride: int = 0  # DRAM bytes between planes
    pads: tuple = (0, 0, 0, 0)

    @property
    def eb(self) -> int:
        return ELEM_BYTES[self.buf]

    @property
    def dram_span(self) -> int:
        return (self.planes - 1) * self.plane_stride + (self.rows - 1) * self.stride \
            + self.cols * self.eb

    @property
    def extent(self) -> int:
        """SRAM elements a load writes: every plane's padded tile."""
        pt, pb, pl, pr = self.pads
        return self.planes * (pt + self.rows + pb) * (pl + self.cols + pr)


def fill_binds(tile: Tile, hw) -> bool:
    """Whether this load's zero fill outlasts its data path: the `ceil(fill / F)` side of the
    dma rule decides its cycles (the fill walks the whole padded tile, see timing.dma)."""
    fill = tile.extent if any(tile.pads) else 0
    nbytes = tile.planes * tile.rows * tile.cols * tile.eb
    return timing.dma_fill(hw, fill) > timing.dma(hw, nbytes)


class DmaStim:
    def __init__(self, rng: np.random.Generator, sizes: dict, dram_bytes: int):
        self.rng = rng
        self.sizes = sizes
        self.dram_bytes = dram_bytes
        self.planes = (1, 0)  # the channel's dma_planes / dma_plane_stride, as last configured

    def _cfg(self, tile: Tile) -> list[Case]:
        """cfg cases (1 cycle each) that set dma_planes/dma_plane_stride when they change."""
        want = (tile.planes, tile.plane_stride if tile.planes > 1 else self.planes[1])
        cases = []
        for reg, old, new in (("dma_planes", self.planes[0], want[0]),
                              ("dma_plane_stride", self.planes[1], want[1])):
            if old != new:
                cases.append(Case(encode_fields("cfg", unit="dma0", reg=reg, value=new),
                                  name=f"cfg {reg}={new}"))
        self.planes = want
        return cases

    def _dram_addr(self, tile: Tile) -> int:
        top = self.dram_bytes - tile.dram_span - GUARD
        return int(self.rng.integers(GUARD // tile.eb + 1, top // tile.eb)) * tile.eb

    def load(self, tile: Tile) -> list[Case]:
        dram = self._dram_addr(tile)
        sram = place(self.rng, self.sizes[tile.buf], tile.extent)
        pt, pb, pl, pr = tile.pads
        word = encode_fields("load", chan=0, buf=tile.buf, sram=sram, dram=dram, rows=tile.rows,
                             cols=tile.cols, stride=tile.stride, pad_top=pt, pad_bottom=pb,
                             pad_left=pl, pad_right=pr)
        # the whole DRAM span is random, gaps between rows included: only rows may be copied
        data = ints(self.rng, tile.dram_span, (0, 255))
        # stale SRAM contents under the tile: padding must overwrite them with zero
        stale = ints(self.rng, tile.extent, TYPE_RANGE[tile.buf])
        return self._cfg(tile) + [Case(word, [("dram", dram, data), (tile.buf, sram, stale)],
                                       [guarded(tile.buf, sram, tile.extent,
                                                self.sizes[tile.buf])], f"load {tile}")]

    def store(self, tile: Tile) -> list[Case]:
        dram = self._dram_addr(tile)
        count = tile.planes * tile.rows * tile.cols
        sram = place(self.rng, self.sizes[tile.buf], count)
        word = encode_fields("store", chan=0, buf=tile.buf, sram=sram, dram=dram, rows=tile.rows,
                             cols=tile.cols, stride=tile.stride)
        before = ints(self.rng, tile.dram_span, (0, 255))  # gaps must keep these bytes
        values = ints(self.rng, count, TYPE_RANGE[tile.buf])
        region = ("dram", dram - GUARD, tile.dram_span + 2 * GUARD)
        return self._cfg(tile) + [Case(word, [("dram", dram, before), (tile.buf, sram, values)],
                                       [region], f"store {tile}")]


def heavy_padding(bw: int) -> list[Tile]:
    """Loads whose zero fill outlasts the data on small DRAM latencies (npu-tiny) and, for the
    8-plane one, even behind npu-edge's 100-cycle latency: 1800 elements, 113 fill cycles."""
    T = Tile
    return [T("ibuf", 1, 1, 1, pads=(7, 7, 7, 7)),                            # 225 elements
            T("wbuf", 1, 1, 1, planes=8, plane_stride=3, pads=(7, 7, 7, 7)),  # 1800 elements
            T("abuf", 2, 1, 4, pads=(7, 7, 7, 7)),                            # int32 elements
            T("obuf", 2, 3, 3, planes=3, plane_stride=10, pads=(7, 0, 2, 7)),
            T("ibuf", 3, bw, bw, pads=(0, 7, 7, 0)),
            T("wbuf", 1, 2, 2, pads=(7, 7, 0, 0))]                            # rows only


def dma_directed(rng, sizes: dict, dram_bytes: int, hw) -> list[Case]:
    s = DmaStim(rng, sizes, dram_bytes)
    T = Tile
    bw = hw.dram_bw
    loads = [T("ibuf", 1, 1, 1), T("ibuf", 3, 5, 8), T("wbuf", 4, bw, bw), T("obuf", 5, 1, 3),
             T("ibuf", 3, 5, 7, pads=(1, 2, 3, 1)),            # every pad side
             T("abuf", 2, 3, 16, pads=(1, 0, 0, 2)),           # 4-byte elements
             T("abuf", 3, 1, 4),                               # contiguous int32 column
             T("ibuf", 2, 3, 5, planes=3, plane_stride=20, pads=(1, 1, 1, 0))]  # 3-D
    cases = [c for t in loads for c in s.load(t)]
    cases += [
        *s.store(T("obuf", 3, 5, 9)),
        *s.store(T("abuf", 2, 3, 20)),
        *s.store(T("ibuf", 2, 2, 3, planes=2, plane_stride=11)),
        *s.store(T("wbuf", 1, 2 * bw + 1, 1)),
        *s.load(T("obuf", 2, 2, 2)),                              # planes back to 1
    ]
    return cases


def random_tile(rng, load: bool, max_pad: int = 3) -> Tile:
    buf = str(rng.choice(list(ELEM_BYTES)))
    eb = ELEM_BYTES[buf]
    rows, cols = int(rng.integers(1, 7)), int(rng.integers(1, 13))
    stride = (cols + int(rng.integers(0, 5))) * eb
    planes = int(rng.choice([1, 1, 1, 2, 3]))
    plane_stride = (rows * stride + int(rng.integers(0, 9)) * eb) if planes > 1 else 0
    pads = (tuple(int(v) for v in rng.integers(0, max_pad + 1, size=4)) if load
            else (0, 0, 0, 0))
    return Tile(buf, rows, cols, stride, planes, plane_stride, pads)


def dma_random(rng, sizes: dict, dram_bytes: int, count: int) -> list[Case]:
    """Random loads (pads 0..3) and stores."""
    s = DmaStim(rng, sizes, dram_bytes)
    cases: list[Case] = []
    for _ in range(count):
        load = bool(rng.integers(0, 2))
        tile = random_tile(rng, load)
        cases += s.load(tile) if load else s.store(tile)
    return cases


def random_padded_tiles(rng, count: int) -> list[Tile]:
    """Random load geometries with pads 0..7 on every side."""
    return [random_tile(rng, True, max_pad=7) for _ in range(count)]
