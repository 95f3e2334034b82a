"""Inverted-residual blocks (1x1 expand -> depthwise -> 1x1 project) fused into one layer whose
expanded tensors never leave the chip: the block runs in bands of output rows, each band's
expand output kept in ibuf as the depthwise input, the depthwise output as the project input.

Why: a standalone depthwise layer moves 2 bytes of DRAM per 9 MACs and 2 vector passes per
output at 16 lanes, so on npu-edge (16 B/cycle, 256 MACs/cycle) it cannot pass ~28% of the
array's peak whatever the array does (docs/codegen.md). Fused, its input and output (the
6x-wide expanded tensors) stay in SRAM and the block's DRAM traffic is its narrow input and
output; the array, the vector unit and the DMA then overlap on one band's work.

Per band of output rows [r0, r1) (input rows [i0, i1) with the kh - 1 halo rows, recomputed by
the expand of each band), per block j of the array's columns of expanded channels: expand conv
(1x1, the band's input rows, all cin) -> epilogue into an ibuf tile (rows x W x 16) -> depthwise
conv (a `dwconv` on a Target with the depthwise mode, else the block-diagonal conv) -> epilogue
into an ibuf tile (pixels x 16) -> one gemm per output block adding its 16 input channels
into the project's accumulators. After the last j the project's epilogue (with the residual)
and the store. Used only where the cost model says it beats the three layers apart."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .conv import SYNC_CYCLES, uses_dwconv
from .cost import FIELD_MAX, Hw
from .epilogue import Epilogue
from .geometry import ConvGeom, block_weights

MARGIN = 0.95  # the fused estimate must beat the three layers' by this: it is the newer one


@dataclass(frozen=True)
class BlockSchedule:
    rows: int          # output rows per band
    p_slots: int       # project accumulator sets: 2 lets a band's epilogue overlap the next
    keep: bool = False  # keep the halo rows of the expanded tensor from the band before
    #                    (a vcopy in ibuf) instead of recomputing them
    # the expand of a band's block in this many pieces of rows, its accumulators one piece's:
    # a tall band whose expanded rows would not fit abuf at once (MobileNetV2's block1:
    # 3-row bands, 45% of the array on its dwconvs' fill, or 7-row bands in 2 pieces, 51%)
    e_parts: int = 1
    est: dict = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        return (f"fused block: rows={self.rows} project acc slots={self.p_slots} "
                f"halo={'kept' if self.keep else 'recomputed'}"
                + (f" expand pieces={self.e_parts}" if self.e_parts > 1 else ""))


@dataclass(frozen=True)
class Band:
    r0: int            # output rows [r0, r1)
    r1: int
    i0: int            # depthwise input rows [i0, i1), implicit zero rows pt above, pb below
    i1: int
    pt: int
    pb: int
    kept: int          # rows [i0, i0 + kept) copied from the band before (keep), not computed

    @property
    def new(self) -> tuple:
        """The input rows the expand computes (or the load brings) for this band."""
        return self.i0 + self.kept, self.i1


def band_plan(dw: ConvGeom, rows: int, keep: bool) -> list | None:
    """The bands of `rows` output rows; None where a kept halo's copy would overlap its
    source (bands shorter than the halo)."""
    out, prev = [], None
    for r0 in range(0, dw.oh, rows):
        r1 = min(r0 + rows, dw.oh)
        i0, i1, pt, pb = dw.in_rows(r0, r1)
        kept = max(0, prev.i1 - i0) if keep and prev is not None else 0
        if kept and i0 - prev.i0 < kept:
            return None
        out.append(prev := Band(r0, r1, i0, i1, pt, pb, kept))
    return out


@dataclass
class FusedBlockLayer:
    """expand (optional) -> depthwise -> project over one image, NHWC int8."""

    name: str
    x: str
    y: str
    expand: ConvGeom | None
    we: np.ndarray | None        # (1, 1, cin, ce)
    epi_e: Epilogue | None
    dw: ConvGeom
    wd: np.ndarray               # (kh, kw, 1, ce)
    epi_d: Epilogue
    project: ConvGeom
    wp: np.ndarray               # (1, 1, ce, cout)
    epi_p: Epilogue
    schedule: BlockSchedule | None = None
    parts: tuple = ()            # the fused nodes' names
    kind: str = "conv"
    note: str = "fused inverted-residual block"

    @property
    def inputs(self) -> list:
        r = self.epi_p.residual
        return [self.x] + ([r] if r and r != self.x else [])

    @property
    def macs(self) -> int:
        return sum(g.macs for g in self.geoms)

    @property
    def geoms(self) -> list:
        return [g for g in (self.expand, self.dw, self.project) if g is not None]

    @property
    def weights(self) -> np.ndarray:
        """Every weight of the block (the roofline counts their bytes once)."""
        return np.concatenate([w.ravel() for w in (self.we, self.wd, self.wp)
                               if w is not None])

    def bands(self) -> list:
        return band_plan(self.dw, self.schedule.rows, self.schedule.keep)

    def blocks(self, channels: int, cols: int) -> list:
        return [(c, min(c + cols, channels)) for c in range(0, channels, cols)]

    def dw_weights(self, c0: int, c1: int, dwconv: bool) -> np.ndarray:
        """Block [c0, c1)'s depthwise weights: the taps (kh, kw, channels) of a dwconv, or the
        block-diagonal (kh, kw, channels, channels) of a conv."""
        if dwconv:
            return np.ascontiguousarray(self.wd[:, :, 0, c0:c1])
        return np.ascontiguousarray(block_weights(self.wd, self.dw, c0, c1))


def new_rows(bands: list, cores: int) -> int:
    """The most input rows a band computes: on several cores the first band of each core's
    share computes its halo too (the band before is another core's)."""
    return max((b.i1 - b.i0) if cores > 1 else (b.new[1] - b.new[0]) for b in bands)


def piece_rows(rows: int, parts: int) -> int:
    """The most rows one of the `parts` pieces of `rows` rows holds (pieces())."""
    return -(-rows // parts)


def pieces(n0: int, n1: int, parts: int) -> list:
    """Rows [n0, n1) in `parts` runs of at most piece_rows(n1 - n0, parts) rows (fewer where
    that leaves none)."""
    step = piece_rows(n1 - n0, parts) if n1 > n0 else 1
    return [(a, min(a + step, n1)) for a in range(n0, n1, step)]


def choose_block(expand: ConvGeom | None, epi_e: Epilogue | None, dw: ConvGeom,
                 epi_d: Epilogue, project: ConvGeom, epi_p: Epilogue,
                 hw: Hw) -> BlockSchedule | None:
    """The cheapest band height (halo kept or recomputed, project accumulator sets) that fits,
    with its estimate;
    None where no band fits the buffers or the fields."""
    best = None
    # balanced bands: the least rows for each band count (any other height only lengthens
    # the last band's wait); two project accumulator sets where they fit, else one
    for rows in sorted({-(-dw.oh // n) for n in range(1, dw.oh + 1)}):
        for keep in (True, False):
            if keep and expand is None:
                continue  # without an expand the halo is only a reload: nothing to keep
            s = _estimate(expand, epi_e, dw, epi_d, project, epi_p, hw, rows, 2, keep) or \
                _estimate(expand, epi_e, dw, epi_d, project, epi_p, hw, rows, 1, keep)
            # the expand in pieces where its accumulators would not fit whole (the least
            # pieces that fit: each adds a conv's fill)
            for parts in (2, 3, 4) if s is None and expand is not None else ():
                s = _estimate(expand, epi_e, dw, epi_d, project, epi_p, hw, rows, 2, keep,
                              parts)
                if s is not None:
                    break
            if s is not None and (best is None or s.est["cycles"] < best.est["cycles"]):
                best = s
    return best


def _estimate(expand, epi_e, dw, epi_d, project, epi_p, hw: Hw, rows: int,
              p_slots: int, keep: bool, e_parts: int = 1) -> BlockSchedule | None:
    cols, eb, elems = hw.cols, hw.act_bytes, hw.buffer_elems
    ce, cout, cin = dw.cout, project.cout, (expand.cin if expand else dw.cin)
    W, ow = dw.w, dw.ow
    dwconv = uses_dwconv(dw, hw)
    jb = [min(cols, ce - c) for c in range(0, ce, cols)]
    pb = [min(cols, cout - c) for c in range(0, cout, cols)]
    cb, cbp = max(jb), max(pb)
    bands = band_plan(dw, rows, keep)
    if bands is None:
        return None
    n_in = max(b.i1 - b.i0 for b in bands)
    n_new = new_rows(bands, hw.num_cores)
    m_in, m_new, m_out = n_in * W, n_new * W, rows * ow
    m_piece = piece_rows(n_new, e_parts) * W  # one expand piece's pixels
    res = epi_p.residual is not None
    # capacities (elements) and fields; kept halos: one expanded band of every channel
    tiles = (len(jb) if keep else 2) * m_in * cb
    ibuf = (2 * m_new * cin if expand else 0) + tiles + 2 * m_out * cb
    w_dw = dw.kh * dw.kw * (ce if dwconv else cb * ce)
    wbuf = (cin * ce if expand else 0) + w_dw + ce * cout
    tables = (epi_e.table_words(ce) if expand else 0) + epi_d.table_words(ce) + \
        epi_p.table_words(cout) + epi_p.scratch_words(m_out * cbp)
    abuf = tables + (2 * m_piece * cb if expand else 0) + 2 * m_out * cb + p_slots * m_out * cout
    obuf = 2 * m_out * cbp * (2 if res else 1)
    if ibuf > elems["ibuf"] or wbuf > elems["wbuf"] or abuf > elems["abuf"] or \
            obuf > elems["obuf"] or m_in * cb > FIELD_MAX["len"] or \
            m_out * cout > FIELD_MAX["len"] or m_out > FIELD_MAX["m"] or \
            max(n_in, W) > FIELD_MAX["in_hw"] or cin > FIELD_MAX["cin"]:
        return None
    cores = hw.num_cores
    mine = bands[:-(-len(bands) // cores)] if cores > 1 else bands  # one core's share
    matrix = vector = 0
    # bands of one shape cost the same: each shape once, times its count
    for (mi, mo, kept), count in Counter(((b.new[1] - b.new[0]) * W, (b.r1 - b.r0) * ow, b.kept)
                                         for b in mine).items():
        mat = vec = 0
        for c, nj in Counter(jb).items():  # blocks of one width cost the same
            if kept:
                vec += nj * hw.cycles("vcopy", len=kept * W * c)
            if expand and mi:
                for a, b in pieces(0, mi // W, e_parts):
                    mat += nj * (hw.conv((b - a) * W, 1, 1, cin, c) + SYNC_CYCLES)
                    vec += nj * epi_e.cycles(hw, (b - a) * W * c)
            mat += nj * ((hw.dwconv(mo, dw.kh, dw.kw, c) if dwconv else
                          hw.conv(mo, dw.kh, dw.kw, c, c)) + SYNC_CYCLES)
            vec += nj * epi_d.cycles(hw, mo * c)
            mat += nj * sum(np_ * (hw.gemm(mo, c, p) + SYNC_CYCLES)
                            for p, np_ in Counter(pb).items())
        vec += sum(epi_p.cycles(hw, mo * p) for p in pb)
        matrix += count * mat
        vector += count * vec
    in_bytes = sum((b.new[1] - b.new[0]) * W for b in mine) * (cin if expand else ce) * eb
    out_bytes = sum((b.r1 - b.r0) * ow for b in mine) * cout * eb
    loads = sum(1 for b in mine if b.new[1] > b.new[0]) if expand else len(mine) * len(jb)
    stores = len(mine) * len(pb)
    streams = {"in": (loads, in_bytes), "w": (6, wbuf * eb + 4 * tables),
               "out": (stores, out_bytes), "res": (stores if res else 0,
                                                   out_bytes if res else 0)}
    dma = hw.dma_streams(streams, cores)
    first_in = m_in * (cin if expand else cb) * eb
    # every core loads all the weights at its start, at once on the shared port
    start = hw.dma_shared(first_in) + hw.dma_shared(wbuf * eb) + \
        ((hw.conv(min(m_in, m_piece), 1, 1, cin, cb) + epi_e.cycles(hw, min(m_in, m_piece) * cb)
          if e_parts > 1 else hw.conv(m_in, 1, 1, cin, cb) + epi_e.cycles(hw, m_in * cb))
         if expand else 0) + \
        epi_d.cycles(hw, m_out * cb)
    tail = sum(epi_p.cycles(hw, m_out * p) + hw.dma(m_out * p * eb, mnemonic="store")
               for p in pb)
    # one project accumulator set: the next band's first gemms wait for this band's epilogue
    serial = 0 if p_slots == 2 else (len(mine) - 1) * sum(epi_p.cycles(hw, m_out * p)
                                                         for p in pb)
    total = max(matrix, vector, dma) + start + tail + serial
    instrs = len(mine) * (len(jb) * ((3 if expand else 2) + 2 * (e_parts - 1) * bool(expand) +
                                     int(keep) + len(epi_d.vector_ops()) + len(pb)) +
                          len(pb) * (2 + len(epi_p.vector_ops())))
    return BlockSchedule(rows, p_slots, keep, e_parts, {
        "cycles": total, "matrix": matrix, "vector": vector, "dma": dma,
        "dram_bytes": in_bytes + out_bytes * (2 if res else 1) + wbuf * eb,
        "instructions": instrs})


def applies(lw, chain) -> bool:
    """An int8 chain on one image whose project keeps the depthwise output's spatial size."""
    return lw.hw.dtype == "int8" and all(
        lw.g.type_of(n.output).dtype == "int8" for n in chain.nodes)


def _geom(lw, n) -> ConvGeom:
    a = n.attrs
    x = lw.g.type_of(n.inputs[0])
    w = lw.const(n.inputs[1])
    nb, h, wd, cin = x.shape
    return ConvGeom(nb, h, wd, cin, w.shape[3], w.shape[0], w.shape[1], *a["strides"],
                    tuple(a["pads"]), *a.get("dilations", (1, 1)), a.get("groups", 1))


def block_candidate(lw, chain) -> FusedBlockLayer | None:
    """The fused layer of `chain` with its schedule, or None where it does not fit."""
    if not applies(lw, chain):
        return None
    exp, dw, proj = chain.expand, chain.dw, chain.project
    ge = _geom(lw, exp) if exp else None
    gd, gp = _geom(lw, dw), _geom(lw, proj)
    ee = lw.epilogue(exp, ge.cout) if exp else None
    ed, ep = lw.epilogue(dw, gd.cout), lw.epilogue(proj, gp.cout)
    s = choose_block(ge, ee, gd, ed, gp, ep, lw.hw)
    if s is None:
        return None
    first = exp or dw
    return FusedBlockLayer(_block_name(chain), first.inputs[0], proj.output, ge,
                           lw.const(exp.inputs[1]) if exp else None, ee, gd,
                           lw.const(dw.inputs[1]), ed, gp, lw.const(proj.inputs[1]), ep, s,
                           tuple(n.name for n in chain.nodes))


def _block_name(chain) -> str:
    """The links' common dotted prefix ('block2' of block2.expand.conv ...) + '.fused'."""
    parts = [n.name.split(".") for n in chain.nodes]
    common = []
    for names in zip(*parts):
        if len(set(names)) > 1:
            break
        common.append(names[0])
    return ".".join(common or [chain.project.name]) + ".fused"


def fuse_blocks(lw, chains: list, spans: dict) -> None:
    """Replace each chain's layers (spans: node name -> (first, end) index in lw.layers) by
    its fused layer where that is estimated faster; the tensors between its links go."""
    for chain in reversed(chains):  # from the back, so earlier spans keep their indices
        nodes = chain.nodes
        if any(n.name not in spans for n in nodes):
            continue
        lo, hi = spans[nodes[0].name][0], spans[nodes[-1].name][1]
        if any(spans[a.name][1] != spans[b.name][0] for a, b in zip(nodes, nodes[1:])):
            continue
        old = lw.layers[lo:hi]
        ests = [getattr(getattr(layer, "schedule", None), "est", {}).get("cycles")
                for layer in old]
        if not old or any(e is None for e in ests):
            continue
        # split by bands, every core loads every weight, all at its start (not hidden behind
        # compute as the layers' streamed tiles are): fuse only where that is under half the
        # DRAM bytes of the intermediate tensors it keeps on chip (written once, read once).
        # A heuristic: the conv estimates of several cores are too rough to be the yardstick
        # there (npu-server's 14x14 blocks: estimated 2x what they simulate)
        eb = lw.hw.act_bytes
        kept = sum(lw.g.type_of(n.output).numel for n in nodes[:-1]) * 2 * eb
        weights = sum(lw.const(n.inputs[1]).size for n in nodes) * eb
        if lw.hw.num_cores > 1 and 2 * lw.hw.num_cores * weights > kept:
            continue
        layer = block_candidate(lw, chain)
        if layer is None or layer.schedule.est["cycles"] >= MARGIN * sum(ests):
            continue
        layer.schedule.est["replaced"] = int(sum(ests))
        lw.layers[lo:hi] = [layer]
        keep = {layer.x, layer.y, *layer.inputs}
        gone = {n.output for n in nodes[:-1]}
        for old_layer in old:
            gone.add(old_layer.y)
            gone.update(getattr(old_layer, "scratch_types", {}))
        for v in gone - keep:
            lw.tensors.pop(v, None)
