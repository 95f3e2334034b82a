"""Stride-1 convs on small feature maps with the array's roles swapped: a block of input
positions (im2col columns) is the stationary operand, the transposed weights stream through
(m = output channels). A 7x7 map gives m = 49 per weight pass in the usual orientation, so the
k + R + C - 1 cycles of fill and drain of every pass cost as much as the work; swapped, each
pass streams up to all the output channels.

The input is first laid out on a zero-bordered grid in DRAM, so that for every kernel tap the
input of output position p is grid pixel p + offset(tap): one strided DMA gathers a
(channels x positions) tile. Outputs are computed on the grid too (positions in the border
columns are junk and never stored). The channel-major accumulators are transposed back to
channel-last through DRAM before the usual epilogue.

Stacked taps (`TConvSchedule.stack`): where a grid row fits the array's columns (n = wg, a
14x14 map's 16-wide grid on a 16-wide array), the stationary tile of grid row r and kernel
column dx serves every kernel row dy at once: output row r - dy reads it through tap
(dy, dx). One gemm streams the kh taps' weights back to back (m = kh x output channels)
into kh consecutive output-row blocks of the accumulators, so a pass pays its k + R + C - 1
cycles of fill and drain once per kh taps (layer3's 3x3 convs: m = 768 instead of 196 in
the usual orientation). The accumulators are zeroed first, since each gemm adds into rows
that other gemms started."""

from __future__ import annotations

from copy import copy
from dataclasses import dataclass, field, replace
from functools import wraps
from math import ceil

import numpy as np

from .conv import _frozen, pick
from .cost import FIELD_MAX, Hw
from .epilogue import Epilogue
from .geometry import ConvGeom


@dataclass(frozen=True)
class Grid:
    """The zero-bordered input grid and the output positions on it."""

    hg: int
    wg: int
    positions: int  # (oh - 1) * wg + ow: grid positions from the first to the last output

    @classmethod
    def of(cls, g: ConvGeom) -> "Grid":
        wg = g.w + g.pads[1] + g.pads[3]
        return cls(g.h + g.pads[0] + g.pads[2], wg, (g.oh - 1) * wg + g.ow)

    def tap_offset(self, g: ConvGeom, dy: int, dx: int) -> int:
        return dy * g.dh * self.wg + dx * g.dw

    def runs(self, g: ConvGeom, p0: int, p1: int) -> list:
        """(grid position, output row, first column, count) of the real outputs in [p0, p1)."""
        out = []
        for oy in range(p0 // self.wg, (p1 - 1) // self.wg + 1):
            a, b = max(p0, oy * self.wg), min(p1, oy * self.wg + g.ow)
            if a < b and oy < g.oh:
                out.append((a, oy, a - oy * self.wg, b - a))
        return out


@dataclass(frozen=True)
class Stack:
    """The stacked form's blocks: `c` grid rows `span` apart side by side (n = c * wg
    columns), so a block shifted by one row is the next block: block j holds output rows
    j, j + span, ... Positions are numbered block by block (j * n + i * wg + x); the grid gets
    zero rows below so every part's rows exist."""

    c: int
    span: int
    wg: int
    hg: int  # grid rows, the zero rows below included

    @classmethod
    def of(cls, g: ConvGeom, c: int) -> "Stack":
        span = ceil(g.oh / c)
        hg = max(g.h + g.pads[0] + g.pads[2], c * span + g.kh - 1)
        return cls(c, span, g.w + g.pads[1] + g.pads[3], hg)

    @property
    def n(self) -> int:
        return self.c * self.wg

    @property
    def positions(self) -> int:
        return self.span * self.n

    def pairs(self, g: ConvGeom) -> list:
        """(r, dy_lo, dy_hi, parts) per stationary tile: grid rows r + i * span for the parts i
        holding input pixels (pad rows hold zeros: a tile of them is skipped), serving output
        blocks r - dy for dy_lo <= dy <= dy_hi."""
        out = []
        for r in range(self.span + g.kh - 1):
            lo, hi = max(0, r - self.span + 1), min(g.kh - 1, r)
            parts = [i for i in range(self.c)
                     if g.pads[0] <= r + i * self.span < g.pads[0] + g.h]
            if lo <= hi and parts:
                out.append((r, lo, hi, parts))
        return out

    def runs(self, g: ConvGeom, p0: int, p1: int) -> list:
        """(position, output row, first column, count) of the real outputs in [p0, p1)."""
        out = []
        for a in range(p0 - p0 % self.wg, p1, self.wg):  # one grid row of a part at a time
            j, i = divmod(a // self.wg, self.c)
            oy = j + i * self.span
            lo, hi = max(p0, a), min(p1, a + g.ow)
            if lo < hi and oy < g.oh:
                out.append((lo, oy, lo - a, hi - lo))
        return out


@dataclass(frozen=True)
class TConvSchedule:
    m_tile: int       # output channels per accumulator tile (the gemm's m)
    n: int            # positions per stationary block (the gemm's n, <= array columns)
    group: int        # input-channel blocks per weight load
    est: dict = field(default_factory=dict, compare=False)
    parts: int = 1    # pieces of a position block's epilogue (smaller epilogue slots)
    stack: int = 0    # stacked kernel rows: grid rows per block (Stack.c); 0: not stacked
    # passes run block by block from resident weights at the end (None: as many as fit)
    tail: int | None = None

    def describe(self) -> str:
        return (f"swapped: m_tile={self.m_tile} n={self.n} k_blocks/load={self.group}"
                + (f" parts={self.parts}" if self.parts > 1 else "")
                + (" stacked" + (f" x{self.stack}" if self.stack > 1 else "")
                   if self.stack else ""))

    @property
    def part(self) -> int:
        """Positions per epilogue piece."""
        return -(-self.n // self.parts)


@dataclass
class TConvLayer:
    """A conv lowered with stationary input positions; see the module docstring."""

    name: str
    x: str
    y: str
    geom: ConvGeom
    weights: np.ndarray
    epilogue: Epilogue
    grid_tensor: str
    acc_tensor: str
    schedule: TConvSchedule | None = None
    kind: str = "conv"
    note: str = "swapped roles"
    useful_macs: int | None = None
    scratch_types: dict = field(default_factory=dict)  # scratch -> (shape, DRAM dtype)
    sub: tuple | None = None         # (h, w, sh, sw) of the input when loads subsample it

    @property
    def inputs(self) -> list:
        return [self.x] + ([self.epilogue.residual] if self.epilogue.residual else [])

    @property
    def macs(self) -> int:
        return self.geom.macs if self.useful_macs is None else self.useful_macs

    @property
    def scratch(self) -> list:
        """DRAM tensors only this layer uses: the input grid and the transposed sums."""
        return [self.grid_tensor, self.acc_tensor]

    @property
    def grid(self) -> Grid:
        return Grid.of(self.geom)

    @property
    def direct(self) -> bool:
        """Whether the taps gather from the input itself (no grid: see direct())."""
        return not self.schedule.stack and direct(self.geom, self.sub)

    @property
    def stacking(self) -> Stack | None:
        return Stack.of(self.geom, self.schedule.stack) if self.schedule.stack else None

    @property
    def grid_rows(self) -> int:
        return self.stacking.hg if self.schedule.stack else self.grid.hg

    @property
    def positions(self) -> int:
        """Positions of the accumulators: stacked, whole grid rows (the junk columns too, so
        every block is one gemm's n wide), in Stack's order."""
        return self.stacking.positions if self.schedule.stack else self.grid.positions

    def runs(self, p0: int, p1: int) -> list:
        """(position, output row, first column, count) of the real outputs in [p0, p1)."""
        st = self.stacking
        return st.runs(self.geom, p0, p1) if st else self.grid.runs(self.geom, p0, p1)

    def blocks(self) -> list:
        """Position blocks [p0, p1) on the grid."""
        n, total = self.schedule.n, self.positions
        return [(p, min(p + n, total)) for p in range(0, total, n)]

    def m_tiles(self) -> list:
        m, c = self.schedule.m_tile, self.geom.cout
        return [(a, min(a + m, c)) for a in range(0, c, m)]

    def k_loads(self, rows: int) -> list:
        """Per weight load: the (tap, channel block) passes it feeds, in order; stacked, the
        (kernel column, channel block) passes, dy = None (every kernel row)."""
        passes = live_columns(self.weights, rows) if self.schedule.stack else \
            live_passes(self.weights, rows)
        gs = self.schedule.group
        return [passes[i:i + gs] for i in range(0, len(passes), gs)]

    def packed_weights(self, m0: int, m1: int, passes: list) -> np.ndarray:
        """W[dy, dx, c0:c1, m0:m1] transposed to (m, c) per pass, back to back; a stacked
        pass (dy None) holds every kernel row's, the last row first (the gemm's first rows
        go to the lowest output row)."""
        w = self.weights
        return np.concatenate([np.ascontiguousarray(w[d, dx, c0:c1, m0:m1].T).ravel()
                               for dy, dx, c0, c1 in passes
                               for d in ((dy,) if dy is not None else
                                         range(w.shape[0] - 1, -1, -1))])


def live_passes(w: np.ndarray, rows: int) -> list:
    """(dy, dx, c0, c1) of every (tap, channel block) with a non-zero weight: a space-to-depth
    rewrite makes whole blocks zero, and a pass of zeros adds nothing (the first is kept so
    the accumulators are always written)."""
    kh, kw, cin, _ = w.shape
    every = [(dy, dx, c, min(c + rows, cin)) for dy in range(kh) for dx in range(kw)
             for c in range(0, cin, rows)]
    # one pass over the weights: per (tap, channel) whether any output's weight is non-zero,
    # then per channel block whether any of its channels is
    nonzero = np.logical_or.reduceat(np.any(w, axis=3), np.arange(0, cin, rows), axis=2)
    live = [p for p, keep in zip(every, nonzero.ravel()) if keep]
    return live or every[:1]


def live_columns(w: np.ndarray, rows: int, live: list | None = None) -> list:
    """(None, dx, c0, c1) of every (kernel column, channel block) with a live pass at any dy;
    `live`: live_passes(w, rows) when the caller has it already."""
    seen = {(None, dx, c0, c1) for _, dx, c0, c1 in
            (live_passes(w, rows) if live is None else live)}  # (dx, c0) names one
    return sorted(seen, key=lambda p: (p[1], p[2]))


STACK_WIN = 0.98  # the stacked form's estimate against the other swapped form's


def whole_columns(stack: int, cin: int, rows: int) -> bool:
    """Stacked: whether a stationary slot holds a kernel column's every channel block (one
    gather per tile, channel blocks as planes), else one channel block's (parts as planes)."""
    return stack == 1 and cin % rows == 0


def stationary_slots(s: TConvSchedule, cin: int, x_tap: int, hw: Hw) -> int:
    """Slots of stationary tiles in wbuf: two, or with a slot per channel block (many short
    gathers) up to eight, so the gathers run ahead and a gather waiting for its slot does
    not hold the in-order DMA queue, and with it the dispatcher, in front of the array's
    next instructions."""
    if not s.stack or whole_columns(s.stack, cin, hw.rows):
        return 2
    return max(2, min(8, hw.buffer_elems["wbuf"] // x_tap))


def stack_parts(g: ConvGeom, hw: Hw) -> int:
    """Grid rows per block of the stacked form (as many as fit the array's columns), or 0
    where it does not apply: dilated rows would land on every dh-th block, not consecutive
    ones; a part's gather zero-fills the dx * dw positions past its row (pad_bottom <= 7);
    int8 only, since the accumulators are zeroed by x - x, which a float NaN left in abuf
    would survive; one core only: split over cores its estimate misses the cores' gathers
    on the shared port (ResNet-18 at 112 on 2 cores, a folded 7x7 layer3 conv: 106.7k
    estimated, 154k simulated, against 115k for the usual schedule)."""
    wg = g.w + g.pads[1] + g.pads[3]
    if g.dh != 1 or g.kh == 1 or wg > hw.cols or (g.kw - 1) * g.dw > FIELD_MAX["pad"] or \
            hw.dtype != "int8" or hw.num_cores > 1:
        return 0
    return min(hw.cols // wg, g.oh)


def direct(g: ConvGeom, sub=None) -> bool:
    """Whether the input is its own grid: a 1x1 conv without padding whose loads do not
    subsample (TConvLayer.sub) has no border to add, so the taps gather from the input and
    the grid's copy and round trip through DRAM are left out."""
    return sub is None and (g.kh, g.kw) == (1, 1) and not any(g.pads)


def applies(g: ConvGeom) -> bool:
    return (g.sh, g.sw) == (1, 1) and g.groups == 1 and g.n == 1 and \
        max(g.pads) <= FIELD_MAX["pad"] and g.cin <= FIELD_MAX["planes"]


_CHOSEN: dict = {}  # choose_tconv's answers: a network repeats its blocks' convs


def _memoized(choose):
    """choose_tconv answered once per key: it is a pure function of the geometry, the Hw, what
    it reads of the epilogue (as conv.choose_schedule: its vector ops, table and scratch
    sizes) and its counts; each caller gets its own copy of the schedule's estimates."""
    @wraps(choose)
    def chosen(g: ConvGeom, epi: Epilogue, hw: Hw, passes: int | None = None,
               table_channels: int | None = None, columns: int | None = None,
               stack: bool = True, sub=None) -> TConvSchedule | None:
        # (pick: the function that keeps one candidate, which a test may swap for another)
        key = (_frozen(g), epi.quantized, bool(epi.residual), tuple(epi.vector_ops()),
               _frozen(hw), passes, table_channels, columns, stack, sub, pick)
        if key not in _CHOSEN:
            if len(_CHOSEN) >= 4096:
                _CHOSEN.clear()
            # the candidates ask the same few costs again and again (per tile width: the
            # epilogue's cycles, the transposes' DMAs): views of hw and epi that keep them
            _CHOSEN[key] = choose(g, _remembering(epi, ("cycles",)),
                                  _remembering(hw, ("cycles", "dma", "gemm")), passes,
                                  table_channels, columns, stack, sub)
        hit = _CHOSEN[key]
        return None if hit is None else replace(hit, est=dict(hit.est))
    return chosen


def _remembering(obj, methods: tuple):
    """A shallow copy of `obj` whose `methods` answer each argument list once (they are pure
    functions of their arguments while one choice is made)."""
    view = copy(obj)
    for name in methods:
        method, answers = getattr(obj, name), {}

        def remembered(*args, _method=method, _answers=answers, **kwargs):
            # numbers and names by value, an object (the Hw view epi.cycles is given) by
            # identity, kept alive with the answer so that its id is not another's
            key = (*(a if type(a) in (int, str) else id(a) for a in args), *kwargs.items())
            hit = _answers.get(key)
            if hit is None:
                hit = _answers[key] = (_method(*args, **kwargs), args)
            return hit[0]
        object.__setattr__(view, name, remembered)  # (Hw is a frozen dataclass)
    return view


@_memoized
def choose_tconv(g: ConvGeom, epi: Epilogue, hw: Hw, passes: int | None = None,
                 table_channels: int | None = None, columns: int | None = None,
                 stack: bool = True, sub=None) -> TConvSchedule | None:
    """The cheapest swapped schedule that fits, or None; `passes`: live (tap, channel block)
    passes (default all); `columns`: live (kernel column, channel block) passes of the stacked
    form (default all); `stack`: whether to consider it (where it applies); `sub`: the
    layer's subsampling loads (TConvLayer.sub), which need the grid (see direct)."""
    if not applies(g):
        return None
    cands = _candidates(g, epi, hw, passes, table_channels, 0, direct(g, sub))
    plain = pick(cands) if cands else None
    c = stack_parts(g, hw) if stack else 0
    stacked = _candidates(g, epi, hw, columns, table_channels, c) if c else []
    if not stacked:
        return plain
    best = pick(stacked)
    # the stacked form must win clearly: pick's tie-break on instructions favours it, and
    # ResNet-50 at 64 on 32x32 ran layer4.1.2 stacked two rows to a block 2.5% slower
    # (91.8k against 89.5k) on an estimate within 2% of the other's
    return best if plain is None or best.est["cycles"] < STACK_WIN * plain.est["cycles"] \
        else plain


def _candidates(g: ConvGeom, epi: Epilogue, hw: Hw, passes: int | None,
                table_channels: int | None, stack: int, no_grid: bool = False) -> list:
    """The swapped schedules that fit; `stack`: grid rows per block of the stacked form;
    `no_grid`: the taps gather from the input itself (direct)."""
    grid = Grid.of(g)
    eb, elems = hw.act_bytes, hw.buffer_elems
    kblocks = ceil(g.cin / hw.rows)
    gsize = grid.hg * grid.wg * g.cin
    if stack:
        st = Stack.of(g, stack)
        positions, n, nblk, taps = st.positions, st.n, st.span, g.kh
        pairs = st.pairs(g)
        gsize = st.hg * st.wg * g.cin
        # one gather per stationary tile where a part is the whole block, else per part and
        # channel block (the tile is stored n x k, so parts sit side by side per block)
        # per tile one gather of a kernel column (channel blocks as planes), or with several
        # parts per block one of a kernel column's channel block (parts as planes)
        whole = whole_columns(stack, g.cin, hw.rows)
        gathers_per_tile = g.kw * len(pairs) * (1 if whole else kblocks)
        gathered = g.kw * len(pairs) * n  # positions, per tile
        x_tap = (g.cin if whole else hw.rows) * n * len(pairs)
        passes = g.kw * kblocks if passes is None else passes
    else:
        positions = grid.positions
        n = min(hw.cols, positions)
        nblk = ceil(positions / n)
        gathers_per_tile, taps = g.kh * g.kw * nblk, 1
        # stationary tiles of one tap, all blocks: cin x positions, double-buffered in wbuf
        x_tap = g.cin * nblk * n
        passes = g.kh * g.kw * kblocks if passes is None else passes
        if no_grid:
            gsize = 0
    cands = []
    if 2 * x_tap > elems["wbuf"] or gsize > elems["ibuf"] // 2 \
            or positions > FIELD_MAX["rows"]:
        return cands
    # the table holds every channel of the layer, also when `g` is one core's share
    table = epi.table_words(g.cout if table_channels is None else table_channels)
    for m, parts in ((m, p) for m in sorted({min(g.cout, FIELD_MAX["channels"])} |
                                            {ceil(g.cout / k) for k in range(2, 9)},
                                            reverse=True) for p in (1, 2, 4) if p <= n):
        tiles = ceil(g.cout / m)
        acc = m * n * nblk
        # a block's epilogue runs in `parts` pieces of `pn` positions, through two slots
        pn = ceil(n / parts)
        epi_words = 2 * pn * m + table + epi.scratch_words(pn * m)
        if acc + epi_words > elems["abuf"] or 2 * pn * m * (2 if epi.residual else 1) > \
                elems["obuf"] or taps * m > FIELD_MAX["m"] or (stack and m * n > FIELD_MAX["len"]):
            continue
        if parts > 1 and acc + 2 * ceil(n / (parts // 2)) * m + table + \
                epi.scratch_words(ceil(n / (parts // 2)) * m) <= elems["abuf"] and \
                2 * ceil(n / (parts // 2)) * m * (2 if epi.residual else 1) <= elems["obuf"]:
            continue  # fewer pieces fit too: no reason to split further
        for group in (1, 2, 4, 8):
            w_tile = taps * m * hw.rows * group
            if 2 * w_tile > elems["ibuf"] - gsize:
                continue
            if stack:  # per pass, one gemm per stationary tile over the kernel rows it serves
                pass_cycles = sum(hw.gemm((hi - lo + 1) * m, hw.rows, n)
                                  for _, lo, hi, _ in pairs)
                matrix = tiles * passes * pass_cycles
                gemms = passes * len(pairs) * tiles
                pass_cycles //= len(pairs)  # one tile's share (the tail's unit of work)
            else:
                pass_cycles = hw.gemm(m, hw.rows, n)  # one gemm pass of a full-depth tap block
                matrix = tiles * passes * nblk * pass_cycles
                gemms = passes * nblk * tiles
            gathers = tiles * gathers_per_tile
            loads = tiles * ceil(passes / group) + gathers
            # the weights of the live passes only (the generator loads no all-zero pass)
            w_elems = min(passes * hw.rows * taps, g.kh * g.kw * g.cin) * g.cout
            gather_b = (gathered if stack else g.kh * g.kw * positions) * tiles * g.cin * eb
            nbytes = gather_b + (w_elems + 2 * gsize
                      + 8 * positions * g.cout
                      + g.oh * g.ow * g.cout * (2 if epi.residual else 1)) * eb
            grid_b, acc_b = gsize * eb, 4 * positions * g.cout * eb
            out_b = g.oh * g.ow * g.cout * eb
            dma = hw.dma_streams({
                "in": (gathers + nblk * tiles * parts + (3 if gsize else 0),
                       gather_b + grid_b + acc_b),
                "w": (loads - gathers, w_elems * eb),
                "out": (nblk * tiles + g.oh * tiles + (1 if gsize else 0),
                        grid_b + acc_b + out_b),
                "res": (g.oh * tiles if epi.residual else 0, out_b if epi.residual else 0)},
                hw.num_cores)
            # stacked: every block's accumulators are zeroed before the passes add into them
            zero = tiles * nblk * hw.cycles("vsub", len=m * n) if stack else 0
            vector = tiles * nblk * parts * epi.cycles(hw, pn * m) + zero
            start = (hw.dma(gsize * eb) * 2 if gsize else 0) + hw.dma(x_tap * eb) + \
                hw.dma(w_tile * eb)
            # after the last pass: each block's transpose round trip, epilogue and stores;
            # the blocks' last passes (from resident weights) overlap all but the last one's
            epi_block = hw.dma(n * m * 4) + parts * (hw.dma(pn * m * 4) + epi.cycles(hw, pn * m)
                                                     + hw.dma(pn * m * eb))
            # stacked, the resident weights also take the grid's place once it is in DRAM
            resident = (elems["ibuf"] - (0 if stack else gsize)
                        - 2 * w_tile) // (taps * m * hw.rows)
            fit = min(passes - 1, max(0, resident)) if nblk > 1 else 0
            # tail passes hide the blocks' epilogues, but their weights are loaded last: where
            # the DMA is the bound, every block after the first runs them after it. Spanning at
            # most the two taps whose stationary tiles stay resident, every block reuses them;
            # spanning more, each block after the first gathers its own tail taps behind the
            # previous block's transposes on the same channel, so they hide nothing. Split
            # over cores (the port shared, so the DMA is the bound) npu-server's layer4 3x3
            # convs take 84.9k cycles with 101 of their 144 passes in the tail, 87k with 32,
            # 81.3k with none; on one core MobileNetV2's 7x7 expand convs gain from theirs
            # (50.3k against 59.6k for the usual schedule, which the penalty would choose).
            # The stacked form keeps every pass that fits (its own tail gathers).
            two = min(fit, 2 * ceil(passes / (g.kh * g.kw)))
            opts = {fit} if stack else {0, fit, two}
            for t in sorted(opts):
                hidden = t * pass_cycles
                bound = dma + (nblk - 1) * hidden if not stack and \
                    (hw.num_cores > 1 or t > two) else dma
                if stack or t <= two:
                    tail = epi_block + (nblk - 1) * max(0, epi_block - hidden)
                else:
                    tail = nblk * epi_block
                total = max(matrix + 8 * gemms, bound, vector) + start + tail
                # a weight load costs its DMA and about three sync instructions
                instrs = gemms + 4 * tiles * ceil(passes / group) + \
                    (parts - 1) * nblk * tiles * 8 + (tiles * nblk if stack else 0)
                cands.append(TConvSchedule(m, n, group, {
                    "cycles": total, "matrix": matrix, "dma": dma, "vector": vector,
                    "dram_bytes": nbytes, "instructions": instrs}, parts, stack, t))
    return cands
