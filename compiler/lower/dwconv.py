"""Standalone depthwise convs on the array's depthwise mode, in bands of output rows x groups of
16-channel blocks: one DMA brings a group's blocks (a 3-D transfer, a plane per block), one
`dwconv` per block, and one DMA stores the group's outputs.

Why: such a layer moves 2 bytes of DRAM per 9 MACs (at stride 1), so DRAM is its roofline
(28% of npu-edge's peak at stride 1, 11% at stride 2; docs/codegen.md). The conv tiler's
schedule of it (one padded load and one store per 16-channel block, both on the activation
channel when there are two engines) pays each transfer's setup and DRAM latency in order on
one engine: MobileNetV2's 14x14x384 layer makes 48 transfers of 3 KB (108 + 196 cycles
each, 14.6k cycles on one engine against 9.6k of port beats), its 7x7x960 ones 120 of 784 B
(3x their roofline). Here a transfer carries `group` blocks, the stores go on the weights'
idle engine where the two would share one (depthwise.store_role), the weights (taps of every
channel) stay resident, and the padding is the conv_pad registers' (no zero fill). With two
slots per buffer the load and the store of each period started together and paid their
setup and latency together (the port idle ~108 cycles a group); a third slot, where it
fits, lets them drift apart, and a strided layer's loads alternate over both engines
(alternates()). Run alone the layer takes 1.03-1.13x the bytes it must move over the port
(its epilogue table of 12 bytes a channel included; MobileNetV2's shapes)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from .conv import SYNC_CYCLES, choose_schedule, uses_dwconv
from .cost import FIELD_MAX, Hw
from .depthwise import store_role
from .epilogue import Epilogue
from .geometry import ConvGeom
from .layer import DepthwiseWork


@dataclass(frozen=True)
class DwTileSchedule:
    rows: int          # output rows per band
    group: int         # 16-channel blocks per transfer
    # input and output group slots (each buffer): a third where it fits, so that a store
    # finishing late does not hold the next group's epilogue, nor that the next load
    slots: int = 2
    # loads alternate between the input's and the weights' engines (two engines, a strided
    # layer whose loads are most of the traffic; stores on the other one: load_roles)
    alternate: bool = False
    est: dict = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        return (f"dwconv bands: rows={self.rows} blocks/transfer={self.group}"
                + (f" slots={self.slots}" if self.slots != 2 else "")
                + (" loads on both engines" if self.alternate else ""))


@dataclass(frozen=True)
class DwItem:
    """One transfer's work: output rows [r0, r1) of channel blocks `blocks` ((c0, c1) each,
    all of one width)."""

    r0: int
    r1: int
    blocks: tuple


@dataclass
class DwconvLayer(DepthwiseWork):
    """A depthwise conv on the array's depthwise mode (uses_dwconv), NHWC, one image."""

    schedule: DwTileSchedule | None = None
    note: str = "depthwise mode, grouped transfers"

    def items(self, cols: int) -> list:
        return work_items(self.geom, cols, self.schedule.rows, self.schedule.group)


def blocks_of(channels: int, cols: int) -> list:
    return [(c, min(c + cols, channels)) for c in range(0, channels, cols)]


def work_items(g: ConvGeom, cols: int, rows: int, group: int) -> list:
    """Bands of `rows` output rows, each in groups of `group` blocks (a narrower last block
    is a group of its own: one transfer moves blocks of one width)."""
    blocks = blocks_of(g.cout, cols)
    whole = [b for b in blocks if b[1] - b[0] == cols]
    rest = [b for b in blocks if b[1] - b[0] != cols]
    groups = [tuple(whole[i:i + group]) for i in range(0, len(whole), group)] + \
        [tuple(rest)] * bool(rest)
    items = [DwItem(r0, min(r0 + rows, g.oh), grp)
             for r0 in range(0, g.oh, rows) for grp in groups]
    return items


def _group_widths(channels: int, cols: int, group: int) -> Counter:
    """work_items' groups of one band as a Counter of their block widths."""
    whole, rest = divmod(channels, cols)
    out = Counter()
    if whole >= group:
        out[(cols,) * group] = whole // group
    if whole % group:
        out[(cols,) * (whole % group)] = 1
    if rest:
        out[(rest,)] += 1
    return out


def alternates(g: ConvGeom, hw: Hw) -> bool:
    """Whether the loads should alternate between the two engines: on a strided layer a
    group's load is sh * sw times its store, so with every load on one engine its setup and
    latency leave the port idle once a group (the short store shares the load's beats
    instead of filling that gap); two loads in flight hide each other's. On a stride-1 layer
    the load and the store of a group already keep both engines busy (alternating there
    measured 5-20% slower on MobileNetV2's)."""
    return hw.dma_engines == 2 and g.sh * g.sw >= 4


def load_roles(s: DwTileSchedule, n: int, engines: int) -> tuple:
    """(load role, store role) of work item `n`."""
    if not s.alternate:
        return "in", store_role(engines)
    load = "in" if n % 2 == 0 else "w"
    return load, "w" if load == "in" else "in"


def block_taps(w: np.ndarray, cols: int) -> np.ndarray:
    """The taps of every block back to back, each block's (kh, kw, c) as a dwconv reads its
    weight tile: one resident constant, block b's tile at kh * kw * b * cols."""
    ch = w.shape[3]
    return np.concatenate([np.ascontiguousarray(w[:, :, 0, c0:c1]).ravel()
                           for c0, c1 in blocks_of(ch, cols)])


def applies(g: ConvGeom, epi: Epilogue, hw: Hw) -> bool:
    return uses_dwconv(g, hw) and g.n == 1 and not epi.residual and \
        max(g.pads) <= FIELD_MAX["conv_pad"] and g.w <= FIELD_MAX["in_hw"]


def choose_dwconv(g: ConvGeom, epi: Epilogue, hw: Hw,
                  table_channels: int | None = None) -> DwTileSchedule | None:
    """The cheapest (band rows, blocks per transfer) that fits, with its estimate."""
    if not applies(g, epi, hw):
        return None
    nblocks = -(-g.cout // hw.cols)
    best, costs, tried = None, {}, 0
    # the tallest bands first (fewer, larger transfers), the three tallest that fit: a
    # shorter band only shortens the first load and the last store, one band's worth
    for rows in sorted({-(-g.oh // n) for n in range(1, g.oh + 1)}, reverse=True):
        fits = False
        for group in range(1, nblocks + 1):
            s = _estimate(g, epi, hw, rows, group, table_channels, costs)
            if s is None:
                break  # (a larger group only needs more of each buffer)
            fits = True
            if best is None or s.est["cycles"] < best.est["cycles"]:
                best = s
        tried += fits
        if tried == 3:
            break
    return best


def _estimate(g: ConvGeom, epi: Epilogue, hw: Hw, rows: int, group: int,
              table_channels: int | None, costs: dict | None = None) -> DwTileSchedule | None:
    """costs: (pixels, channels) -> (dwconv, epilogue) cycles, shared by one layer's calls."""
    costs = {} if costs is None else costs
    cols, eb, elems = hw.cols, hw.act_bytes, hw.buffer_elems
    cb = min(cols, g.cout)
    spans = [g.in_rows(r0, min(r0 + rows, g.oh))[:2] for r0 in range(0, g.oh, rows)]
    n_in = max(b - a for a, b in spans)
    m_in, m_out = n_in * g.w, rows * g.ow
    table = epi.table_words(g.cout if table_channels is None else table_channels)
    taps = g.kh * g.kw * g.cout
    if 2 * group * m_in * cb > elems["ibuf"] or taps > elems["wbuf"] or \
            table + 2 * m_out * cb > elems["abuf"] or 2 * group * m_out * cb > elems["obuf"] or \
            m_in > FIELD_MAX["rows"] or m_out * cb > FIELD_MAX["len"] or \
            m_out > FIELD_MAX["m"] or n_in > FIELD_MAX["in_hw"] or group > FIELD_MAX["planes"]:
        return None
    slots = 3 if 3 * group * m_in * cb <= elems["ibuf"] and \
        3 * group * m_out * cb <= elems["obuf"] else 2
    cores = hw.num_cores
    # items of one shape (band height, input rows, block widths) cost the same: each once
    if cores == 1:  # (in closed form: the chooser asks for every band height and group)
        groups = _group_widths(g.cout, cols, group)
        bands = Counter((min(r0 + rows, g.oh) - r0, b - a) for r0, (a, b) in
                        zip(range(0, g.oh, rows), spans))
        shapes = Counter({(r, n, w): nb * nw for (r, n), nb in bands.items()
                          for w, nw in groups.items()})
        transfers = len(spans) * sum(groups.values())
    else:
        items = work_items(g, cols, rows, group)
        mine = items[:-(-len(items) // cores)]
        shapes = Counter((it.r1 - it.r0, g.in_rows(it.r0, it.r1)[1] -
                          g.in_rows(it.r0, it.r1)[0], tuple(c1 - c0 for c0, c1 in it.blocks))
                         for it in mine)
        transfers = len(mine)
    matrix = vector = in_bytes = out_bytes = 0
    for (r, n, widths), count in shapes.items():
        mo = r * g.ow
        for c in widths:
            cyc = costs.get((mo, c))
            if cyc is None:
                cyc = costs[mo, c] = (hw.dwconv(mo, g.kh, g.kw, c) + SYNC_CYCLES,
                                      epi.cycles(hw, mo * c))
            matrix += count * cyc[0]
            vector += count * cyc[1]
            in_bytes += count * n * g.w * c * eb
            out_bytes += count * mo * c * eb
    streams = {"in": (transfers + 1, in_bytes), "w": (2, taps * eb + 4 * table),
               "out": (0, 0), "res": (0, 0)}
    # (the alternating loads of a strided layer are counted on the input's engine: errs high)
    role = store_role(hw.dma_engines)
    prev = streams[role]
    streams[role] = (prev[0] + transfers, prev[1] + out_bytes)
    # the loads and the stores on two engines fall into step (each waits on the port while
    # the other's beats run), so the port idles through about half of each transfer's fixed
    # cost (fitted on MobileNetV2's 14x14 and 7x7 layers: within ~10% of the simulated
    # cycles at the group sizes that win); on one engine dma_streams counts them all
    fixed = hw.dma_setup + hw.dram_latency
    port = hw.beats(in_bytes + out_bytes + taps * eb + 4 * table) * cores
    dma = max(hw.dma_streams(streams, cores), port + transfers * fixed // 2)
    # the last group's dwconvs and epilogues wait for its load, its store for them; and
    # the first load's and the last store's fixed costs
    k = max(len(w) for _, _, w in shapes)
    per_block = max(hw.dwconv(m_out, g.kh, g.kw, cb) + SYNC_CYCLES, epi.cycles(hw, m_out * cb))
    total = max(matrix, vector, dma) + k * per_block + 2 * fixed
    instrs = sum(count * (2 + len(w) * (1 + len(epi.vector_ops())))
                 for (_, _, w), count in shapes.items())
    return DwTileSchedule(rows, group, slots, alternates(g, hw), {
        "cycles": total, "matrix": matrix, "vector": vector, "dma": dma,
        "dram_bytes": in_bytes + out_bytes + taps * eb, "instructions": instrs})


def dwconv_candidate(lw, name: str, x: str, y: str, geom: ConvGeom, w: np.ndarray,
                     epi: Epilogue) -> tuple | None:
    """(estimated cycles, [layer]) where this beats the conv tiler's schedule of the same
    layer, else None. On several cores the work items (bands x groups) are split over them;
    both estimates are of one core's share."""
    if not applies(geom, epi, lw.hw):
        return None
    s = choose_dwconv(geom, epi, lw.hw)
    if s is None:
        return None
    cores = lw.hw.num_cores
    share = -(-geom.cout // cores)
    g = geom if cores == 1 else replace(geom, cin=share, cout=share, groups=share)
    plain = choose_schedule(g, epi, lw.hw, name, table_channels=geom.cout)
    # (no margin: this estimate errs high, by up to ~8% on MobileNetV2's layers)
    if s.est["cycles"] >= plain.est["cycles"]:
        return None
    return s.est["cycles"], [DwconvLayer(name, x, y, geom, w, epi, s)]
