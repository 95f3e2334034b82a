"""Convolution (and batched dense) lowering: output-row x output-channel x input-channel
tiles, loop order and slot counts chosen against the Target by an analytical cost model."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from math import ceil, gcd

import numpy as np

from ..errors import CompilerError
from .cost import FIELD_MAX, Hw
from .epilogue import Epilogue
from .geometry import ConvGeom, block_weights

ORDERS = ("sjq", "sqj", "jsq")  # loop nest, outer to inner: s = row tile, j = cout, q = cin
SYNC_CYCLES = 8   # waits, signal and cfgs a conv costs the matrix unit
TOLERANCE = 0.01  # estimated-cycle slack traded for fewer instructions
FRUGAL = 0.5      # DRAM bytes a near-tie must at most move to win on them (pick)


@dataclass(frozen=True)
class ConvSchedule:
    rows: int            # output rows per spatial tile
    cin_slice: int       # input channels per conv instruction (whole range, or R multiples)
    order: str           # one of ORDERS
    in_slots: int
    w_slots: int
    acc_slots: int
    out_slots: int
    est: dict = field(default_factory=dict, compare=False)  # cycles/bytes estimates

    def describe(self) -> str:
        return (f"rows={self.rows} cin_slice={self.cin_slice} order={self.order} slots "
                f"in/w/acc/out={self.in_slots}/{self.w_slots}/{self.acc_slots}/"
                f"{self.out_slots}")


@dataclass(frozen=True)
class ConvTile:
    """One conv instruction's work: output rows x output channels, over an input slice."""

    image: int
    r0: int
    r1: int
    c0: int
    c1: int
    q0: int
    q1: int
    first: bool           # first input slice of this (image, rows, channels) accumulator
    last: bool            # last: the epilogue and the store follow

    @property
    def in_key(self) -> tuple:
        return (self.image, self.r0, self.q0, self.q1)

    @property
    def w_key(self) -> tuple:
        return (self.c0, self.q0)

    @property
    def acc_key(self) -> tuple:
        return (self.image, self.r0, self.c0)


@dataclass
class ConvLayer:
    """A lowered conv: geometry, weights (kh, kw, cin/groups, cout), epilogue, schedule."""

    name: str
    x: str
    y: str
    geom: ConvGeom
    weights: np.ndarray
    epilogue: Epilogue
    schedule: ConvSchedule | None = None
    kind: str = "conv"
    note: str = ""
    useful_macs: int | None = None   # the model's MACs when a rewrite adds zero weights
    sub: tuple | None = None         # (h, w, sh, sw) of the input when loads subsample it
    by_rows: bool | None = None      # split over cores by rows (None: split_rows decides)
    cores: int | None = None         # the cores it is split over (None: all the Target's)

    @property
    def inputs(self) -> list:
        return [self.x] + ([self.epilogue.residual] if self.epilogue.residual else [])

    @property
    def macs(self) -> int:
        """MACs of the model's conv (not the zero taps a space-to-depth rewrite adds)."""
        return self.geom.macs if self.useful_macs is None else self.useful_macs

    def blocks(self, cols: int) -> list:
        """(c0, c1, lo, hi) per output-channel block of the array's width."""
        g = self.geom
        return [(c0, min(c0 + cols, g.cout), *g.cin_range(c0, min(c0 + cols, g.cout)))
                for c0 in range(0, g.cout, cols)]

    def tiles(self, hw: Hw, images=None) -> list:
        """Every conv instruction of the schedule, in execution order."""
        s = self.schedule
        g = self.geom
        images = range(g.n) if images is None else images
        rows = [(r, min(r + s.rows, g.oh)) for r in range(0, g.oh, s.rows)]
        spatial = [(n, r0, r1) for n in images for r0, r1 in rows]
        blocks = self.blocks(hw.cols)

        def slices(lo, hi):
            return [(q, min(q + s.cin_slice, hi)) for q in range(lo, hi, s.cin_slice)]

        def tile(sp, blk, qi, qs):
            (n, r0, r1), (c0, c1) = sp, blk[:2]
            return ConvTile(n, r0, r1, c0, c1, *qs[qi], qi == 0, qi == len(qs) - 1)

        out = []
        if s.order == "sjq":
            for sp in spatial:
                for blk in blocks:
                    qs = slices(blk[2], blk[3])
                    out += [tile(sp, blk, i, qs) for i in range(len(qs))]
        elif s.order == "jsq":
            for blk in blocks:
                qs = slices(blk[2], blk[3])
                for sp in spatial:
                    out += [tile(sp, blk, i, qs) for i in range(len(qs))]
        else:  # sqj: dense convs only, every block shares the input slices
            qs = slices(0, g.cin)
            for sp in spatial:
                for i in range(len(qs)):
                    out += [tile(sp, blk, i, qs) for blk in blocks]
        return out

    def block_weights(self, c0: int, c1: int, q0: int, q1: int,
                      dw: bool = False) -> np.ndarray:
        """The weight tile of output channels [c0, c1) over input slice [q0, q1): kh x kw x
        slice x channels (zeros between groups), or with `dw` (a dwconv tile, uses_dwconv)
        the depthwise taps kh x kw x channels."""
        if dw:
            return np.ascontiguousarray(self.weights[:, :, 0, c0:c1])
        lo, _ = self.geom.cin_range(c0, c1)
        return np.ascontiguousarray(block_weights(self.weights, self.geom, c0, c1)
                                    [:, :, q0 - lo:q1 - lo, :])


def uses_dwconv(g: ConvGeom, hw: Hw) -> bool:
    """Whether the conv's tiles are dwconv instructions (the array's depthwise mode: a column
    per channel, so one pass of up to R taps instead of kh*kw block-diagonal passes): a
    depthwise conv on a Target whose array has the mode for a whole block of channels."""
    return g.groups == g.cin == g.cout > 1 and hw.depthwise_cols >= min(hw.cols, g.cout)


def split_rows(g: ConvGeom, cores: int, cols: int) -> bool:
    """Whether a conv split over `cores` goes by output rows (each core loads its rows of the
    input, with their halo, and all the weights) rather than by output-channel blocks (each
    core loads the whole input and its blocks' weights): rows when there are too few blocks,
    else whichever moves fewer DRAM bytes (the cores share the port). Grouped convs, and maps
    with fewer rows than cores, go by blocks."""
    if cores == 1:
        return False
    if ceil(g.cout / cols) < cores:
        return True
    if g.groups > 1 or g.oh < cores:
        return False
    per = ceil(g.oh / cores)
    in_rows = min(g.h, (per - 1) * g.sh + (g.kh - 1) * g.dh + 1)
    row_bytes = g.n * g.w * g.cin
    weights = g.kh * g.kw * g.cin * g.cout
    return cores * (in_rows * row_bytes + weights) < cores * g.h * row_bytes + weights


# ------------------------------------------------------------------ the tile chooser

def _load_rule(order: str, keys: str, n_s: int, n_j: int, n_q: int) -> tuple:
    """(few, many, need): under SlotCache a loop order loads the input ('in') or weight
    ('w') tiles `few` times with at least `need` slots, else `many` times."""
    if keys == "in":
        if order == "sqj":
            return n_s * n_q, n_s * n_q, 0
        if order == "sjq":
            return n_s * n_q, n_s * n_j * n_q, 0 if n_q == 1 else n_q
        return n_s * n_q, n_j * n_s * n_q, n_s * n_q
    if order == "jsq":
        return n_j * n_q, n_j * n_s * n_q, n_q
    return n_j * n_q, n_s * n_j * n_q, n_j * n_q


def _loads(rule: tuple, slots: int) -> int:
    few, many, need = rule
    return few if slots >= need else many


def _fewest(slots: int, rule: tuple, want: int) -> int:
    """The fewest slots (at least 2, or all there are) with `want` = _loads(rule, slots)
    loads: the least when every count gives it, else `need` (which `slots` reaches)."""
    k = min(2, slots)
    few, many, need = rule
    return k if many <= want else max(k, need)


def _row_options(oh: int, ow: int = 1, fold: int = 1) -> list:
    """Output rows per tile: the balanced splits of oh, and where the array takes m in folds of
    `fold` pixels (Hw.m_fold: R on an output-stationary array) the heights whose rows * ow
    pixels are whole folds, which the balanced splits often miss."""
    out = {ceil(oh / k) for k in range(1, oh + 1)}
    step = fold // gcd(ow, fold)
    if fold > 1 and step < oh:
        out |= set(range(step, oh, step)[:32])
    return sorted(out, reverse=True)


def _slice_options(cin: int, rows: int, grouped: bool) -> list:
    """The whole range, and R times powers of two below it (slices only change loads and
    the first tile's latency, so a logarithmic choice loses little)."""
    if grouped or cin <= rows:
        return [cin]
    out, k = [cin], 1
    while rows * k < cin:
        out.append(rows * k)
        k *= 2
    return out


def _fold_slices(cin: int, rows: int, grouped: bool) -> list:
    """On an output-stationary array every input slice pays its folds' R + C - 1 again: the
    R multiples splitting cin into 2 to 8 balanced slices, so the fewest slices whose weight
    tile fits wbuf are offered (the powers of two R x 2^i miss 3 slices, and 2 of 384)."""
    if grouped or cin <= rows:
        return []
    return sorted({rows * ceil(ceil(cin / k) / rows) for k in range(2, 9)} - {cin},
                  reverse=True)


PRUNED = "pruned"  # estimate()'s answer when its lower bound already exceeds `bound`


def estimate(geom: ConvGeom, epi: Epilogue, hw: Hw, rows: int, cq: int, order: str,
             costs: dict | None = None, table_channels: int | None = None,
             bound: float | None = None):
    """The schedule for these tile sizes with the most slots that fit, and its estimated
    cycles; None when it does not fit the Target's buffers or instruction fields. `costs`:
    a dict shared by the calls of one choice, keeping the cycles that do not depend on the
    order (matrix work, epilogue, one DMA of each tile) by the tile sizes they depend on.
    `bound`: PRUNED instead when the cycles cannot be below it (a lower bound the same in
    every loop order: the matrix work with its syncs, or the epilogue's, plus the first
    tile's latency), before the DMA streams are costed."""
    g, eb = geom, hw.act_bytes
    # the epilogue table holds every channel of the layer, also when `geom` is one core's share
    table = epi.table_words(g.cout if table_channels is None else table_channels)
    grouped = g.groups > 1
    dw = uses_dwconv(g, hw)
    cb = min(hw.cols, g.cout)
    n_j = ceil(g.cout / cb)
    cr = g.cin_range(0, cb)[1] - g.cin_range(0, cb)[0] if grouped else g.cin
    n_q = ceil(cr / cq)
    if order == "sqj" and (grouped or n_q == 1):
        return None
    n_s = g.n * ceil(g.oh / rows)
    in_rows = min((rows - 1) * g.sh + (g.kh - 1) * g.dh + 1, g.h)
    m = rows * g.ow
    # (a kernel past the conv_kh/conv_kw registers, e.g. ViT's 16x16 patches, takes the
    # gemm forms; found when two weight banks made the conv form the cheaper one)
    if in_rows > FIELD_MAX["in_hw"] or g.w > FIELD_MAX["in_hw"] or max(g.pads) > \
            FIELD_MAX["conv_pad"] or cq > FIELD_MAX["cin"] or m * cb > FIELD_MAX["len"] or \
            max(g.kh, g.kw) > FIELD_MAX["conv_kernel"]:
        return None
    last = g.in_rows((g.oh - 1) // rows * rows, g.oh)
    if last[1] <= last[0]:  # the last row tile reads only padding rows: nothing to load
        return None
    # a dwconv tile's weights are one tap per channel, not a block-diagonal slice
    in_tile, w_tile, acc_tile = in_rows * g.w * cq, g.kh * g.kw * (1 if dw else cq) * cb, m * cb
    elems = hw.buffer_elems
    in_keys = n_s * (n_j if grouped else n_q)
    in_slots = min(in_keys, elems["ibuf"] // in_tile)
    w_slots = min(n_j * n_q, elems["wbuf"] // w_tile)
    avail = elems["abuf"] - table - epi.scratch_words(acc_tile)
    need_acc = n_j if order == "sqj" else 1
    acc_slots = min(need_acc * 2, avail // acc_tile) if avail > 0 else 0
    per_out = acc_tile * (2 if epi.residual else 1)
    out_slots = min(2, elems["obuf"] // per_out)
    if min(in_slots, w_slots, out_slots) < 1 or acc_slots < need_acc:
        return None
    if grouped:
        in_loads = n_s * n_j
        w_loads = n_j if n_j <= w_slots else n_s * n_j
    else:
        in_rule = _load_rule(order, "in", n_s, n_j, n_q)
        w_rule = _load_rule(order, "w", n_s, n_j, n_q)
        in_loads, w_loads = _loads(in_rule, in_slots), _loads(w_rule, w_slots)
        # keep only the slots that save loads (2 for double buffering): the SRAM left over
        # lets the next layer load while this one computes
        in_slots = _fewest(in_slots, in_rule, in_loads)
        w_slots = _fewest(w_slots, w_rule, w_loads)
    # matrix: every (row tile, block, slice) conv: per image oh // rows tiles of m = rows * ow
    # pixels and one of the rest. Summed tile by tile: the weight-stationary rule is affine in
    # m (the sum is conv(all pixels) + (n_s - 1) * conv(0)), the output-stationary one rounds
    # each tile up to whole folds of R pixels.
    # The Hw is asked each cost once per choice: per (slice width, tile pixels) one conv,
    # per slice width one weight DMA, per row count the epilogue and one accumulator DMA,
    # per (rows, cq) one input tile DMA
    costs = {} if costs is None else costs
    by_cq = costs.get(("cq", cq))
    if by_cq is None:
        slices = [min(cq, cr - q) for q in range(0, cr, cq)]
        by_cq = costs[("cq", cq)] = (slices, hw.dma(w_tile * eb))
    full, rest = divmod(g.oh, rows)

    def conv(pixels: int, c: int) -> int:
        key = ("conv", pixels, c)
        if key not in costs:
            costs[key] = hw.dwconv(pixels, g.kh, g.kw, cb) if dw else \
                hw.conv(pixels, g.kh, g.kw, c, cb)
        return costs[key]
    by_rows = costs.get(("rows", rows))
    if by_rows is None:
        by_rows = costs[("rows", rows)] = (epi.cycles(hw, acc_tile), hw.dma(acc_tile * eb))
    in_dma = costs.get((rows, cq))
    if in_dma is None:
        in_dma = costs[(rows, cq)] = hw.dma(in_tile * eb)
    slices, w_dma = by_cq
    epi_cycles, acc_dma = by_rows
    per_slice = {c: g.n * (full * conv(m, c) + (conv(rest * g.ow, c) if rest else 0))
                 for c in set(slices)}  # all slices but the last are alike
    matrix = n_j * sum(per_slice[c] for c in slices)
    vector = n_s * n_j * epi_cycles
    instrs = n_s * n_j * n_q
    start = in_dma + w_dma + epi_cycles + acc_dma
    # the total below is at least this (dma, exposed and serial only add)
    if bound is not None and max(matrix + SYNC_CYCLES * instrs, vector) + start > bound:
        return PRUNED
    out_bytes = g.n * g.oh * g.ow * g.cout * eb
    nbytes = (in_loads * in_tile + w_loads * w_tile) * eb + out_bytes * \
        (2 if epi.residual else 1) + table * 4
    res_bytes = out_bytes if epi.residual else 0
    dma = hw.dma_streams({"in": (in_loads, in_loads * in_tile * eb),
                          "w": (w_loads + 1, w_loads * w_tile * eb + table * 4),
                          "out": (n_s * n_j, out_bytes), "res": (n_s * n_j if res_bytes else 0,
                                                                 res_bytes)},
                         hw.num_cores)
    serial = 0
    if in_slots == 1 and in_loads > 1:
        serial += in_loads * in_dma
    if w_slots == 1 and w_loads > 1:
        serial += w_loads * w_dma
    if acc_slots == need_acc and n_s * n_j > need_acc:
        serial += vector
    if out_slots == 1 and n_s * n_j > 1:
        serial += n_s * n_j * acc_dma
    # sjq with the input slices kept for the other blocks: the first block's convs wait for
    # every slice of a row tile as it arrives (sqj runs all blocks on each slice instead)
    exposed = 0
    if order == "sjq" and not grouped and n_j > 1 and n_q > 1 and in_loads == n_s * n_q:
        exposed = n_s * max(0, n_q * hw.dma_shared(in_tile * eb) - matrix // (n_s * n_j))
    # each conv also costs the matrix unit its waits, signal and cfgs (a few cycles)
    total = max(matrix + SYNC_CYCLES * instrs + exposed, vector, dma) + start + serial
    est = {"cycles": total, "matrix": matrix, "vector": vector, "dma": dma,
           "dram_bytes": nbytes, "instructions": instrs}
    return ConvSchedule(rows, cq, order, in_slots, w_slots, acc_slots, out_slots, est)


_CHOSEN: dict = {}  # choose_schedule's answers: a network repeats its blocks' convs


def choose_schedule(geom: ConvGeom, epi: Epilogue, hw: Hw, name: str = "", *,
                    table_channels: int | None = None) -> ConvSchedule:
    """The cheapest feasible schedule; among those within TOLERANCE of it, the one with the
    fewest instructions (each costs dispatch, sync, assembly and simulation time). A pure
    function of the geometry, the Hw and what estimate() reads of the epilogue (its vector
    ops, table and scratch sizes), so a repeated conv is chosen once."""
    key = (_frozen(geom), epi.quantized, bool(epi.residual), tuple(epi.vector_ops()),
           _frozen(hw), table_channels)
    hit = _CHOSEN.get(key)
    if hit is None:
        hit = _choose(geom, epi, hw, name, table_channels)
        if len(_CHOSEN) >= 4096:
            _CHOSEN.clear()
        _CHOSEN[key] = hit
    return replace(hit, est=dict(hit.est))


def _frozen(v):
    """A hashable copy of a value made of dataclasses, dicts, lists and scalars."""
    if hasattr(v, "__dataclass_fields__"):
        return (type(v),) + tuple(_frozen(getattr(v, f)) for f in v.__dataclass_fields__)
    if isinstance(v, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    return v


def _choose(geom: ConvGeom, epi: Epilogue, hw: Hw, name: str,
            table_channels: int | None = None, prune: bool = True) -> ConvSchedule:
    """pick() of every feasible estimate; `prune`: a tile size whose lower bound (the same
    in every loop order, and under each order's total: estimate's `bound`), or whose matrix
    cycles, already exceed the cheapest so far by more than TOLERANCE is not estimated
    further: pick() would never keep it, so the choice is the same
    (tests/compiler/test_lower_tiling.py holds it)."""
    cands, costs = [], {}
    best = None               # the cheapest estimate so far
    grouped = geom.groups > 1
    cr = geom.cin_range(0, min(hw.cols, geom.cout))
    cr = cr[1] - cr[0] if grouped else geom.cin
    slices = _slice_options(cr, hw.rows, grouped)
    if hw.m_fold > 1:  # output stationary: a slice costs whole folds again
        slices += [q for q in _fold_slices(cr, hw.rows, grouped) if q not in slices]
    for rows in _row_options(geom.oh, geom.ow, hw.m_fold):
        for cq in slices:
            for order in (("sjq",) if grouped else ORDERS):
                s = estimate(geom, epi, hw, rows, cq, order, costs, table_channels,
                             best * (1 + TOLERANCE) if prune and best is not None else None)
                if s is PRUNED:
                    break  # every order of this tile size costs more than pick() keeps
                if s is not None:
                    cands.append(s)
                    if best is None or s.est["cycles"] < best:
                        best = s.est["cycles"]
                    if prune and s.est["matrix"] > best * (1 + TOLERANCE):
                        break  # the other orders of this tile size cost at least as much
    if not cands:
        g = geom
        raise CompilerError(
            f"layer '{name}': no tiling of conv {g.h}x{g.w}x{g.cin} -> {g.oh}x{g.ow}x{g.cout} "
            f"(kernel {g.kh}x{g.kw}) fits the Target's buffers (elements: "
            f"{dict(hw.buffer_elems)}) and instruction fields (in_h/in_w <= "
            f"{FIELD_MAX['in_hw']}, pads <= {FIELD_MAX['conv_pad']}, kernel <= "
            f"{FIELD_MAX['conv_kernel']}); "
            "use a Target with larger buffers or a smaller input resolution")
    return pick(cands)


def pick(cands: list):
    """Among the schedules within TOLERANCE of the cheapest, the one with the fewest
    instructions, unless one of them moves at most FRUGAL times its DRAM bytes: then the
    one moving the fewest."""
    low = min(s.est["cycles"] for s in cands)
    near = [s for s in cands if s.est["cycles"] <= low * (1 + TOLERANCE)]
    few = min(near, key=lambda s: (s.est["instructions"], s.est["cycles"]))
    frugal = min(near, key=lambda s: (s.est["dram_bytes"], s.est["instructions"],
                                      s.est["cycles"]))
    return frugal if frugal.est["dram_bytes"] <= FRUGAL * few.est["dram_bytes"] else few
