"""NPU code of a conv with swapped roles (compiler.lower.tconv): build the zero-bordered input
grid in DRAM, gather (channels x positions) tiles per kernel tap, stream transposed weight
tiles through `gemm` (m = output channels), then per position block transpose the int32
accumulators back through DRAM and run the usual epilogue and stores."""

from __future__ import annotations

import numpy as np

from ...lower.cache import SlotCache
from ...lower.tconv import TConvLayer, stationary_slots, whole_columns
from .epilogue_gen import EpilogueCode
from .generators import register_generator


@register_generator(TConvLayer, items=lambda layer, hw: layer.m_tiles())
def gen_tconv(em, layer, m_tiles, dram, lowered, key: str) -> None:
    hw, g, s, epi = em.hw, layer.geom, layer.schedule, layer.epilogue
    grid, eb, ab = layer.grid, hw.act_bytes, hw.elem_bytes["abuf"]
    blocks = layer.blocks()
    n, cin, cout = s.n, g.cin, g.cout
    sram = em.sram()
    ep = EpilogueCode(em, sram, dram, epi, cout, s.part * s.m_tile, key)
    gsize = 0 if layer.direct else layer.grid_rows * grid.wg * cin
    kt = g.kh if s.stack else 1  # taps per streamed weight tile: stacked, every kernel row
    rows = layer.stacking.pairs(g) if s.stack else []
    w_tile = kt * s.m_tile * hw.rows * s.group
    if s.stack:  # the resident tail weights take the grid's place once it is in DRAM
        wbase = sram.alloc("ibuf", 2 * w_tile, "weight slots")
        gbase = sram.alloc("ibuf", gsize, "input grid")
    else:
        gbase = sram.alloc("ibuf", gsize, "input grid") if gsize else 0
        wbase = sram.alloc("ibuf", 2 * w_tile, "weight slots")
    # stationary tiles per slot: one tap's for every block; stacked, one kernel column's for
    # every tile (with several grid rows per block, one channel block's)
    whole = whole_columns(s.stack, cin, hw.rows)  # stacked: a slot holds every channel block
    x_tap = (cin if whole or not s.stack else hw.rows) * n * \
        (len(rows) if s.stack else len(blocks))
    x_slots = stationary_slots(s, cin, x_tap, hw)
    xbase = sram.alloc("wbuf", x_slots * x_tap, "stationary tap tiles")
    acc = sram.alloc("abuf", s.m_tile * n * len(blocks), "accumulators")
    ebase = sram.alloc("abuf", 2 * s.part * s.m_tile, "epilogue slots")
    obase = sram.alloc("obuf", 2 * s.part * s.m_tile * (2 if epi.residual else 1), "out slots")
    x, xg = dram.addr(lowered, layer.x), dram.addr(lowered, layer.grid_tensor)
    acc_t, y = dram.addr(lowered, layer.acc_tensor), dram.addr(lowered, layer.y)
    res = dram.addr(lowered, epi.residual) if epi.residual else None
    ep.prologue(layer.name)
    if layer.direct:  # the input is its own grid (no border): the taps gather from it
        xg = x
    else:
        _grid(em, layer, dram, key, gbase, gsize, x, xg)
    # the last passes run block by block from resident weights, so the position blocks finish
    # one after another and each one's epilogue overlaps the others' last passes
    passes = layer.k_loads(hw.rows)
    flat = [p for group in passes for p in group]
    free = hw.buffer_elems["ibuf"] - sram.used["ibuf"] + (gsize if s.stack else 0)
    tail_n = min(len(flat) - 1, free // (kt * s.m_tile * hw.rows)) if len(blocks) > 1 else 0
    if s.tail is not None:  # the cost model's choice (fewer where the DMA is the bound)
        tail_n = min(tail_n, s.tail)
    tail = flat[len(flat) - tail_n:] if tail_n > 0 else []
    head = flat[:len(flat) - len(tail)]
    tsize = len(tail) * kt * s.m_tile * hw.rows
    if s.stack:  # from the grid's first element on, past its end if need be
        tbase = min(gbase, sram.alloc("ibuf", tsize - gsize, "resident tail weights")) \
            if tsize > gsize else gbase
    else:
        tbase = sram.alloc("ibuf", tsize, "resident tail weights") if tail else 0
    wslot = 0
    taps = SlotCache(2)
    # the tail's taps all fit the two tap slots: gathered whole, every block reuses them
    whole_tail = len({(dy, dx) for dy, dx, *_ in tail}) <= taps.nslots

    def gather(dy, dx):
        """The stationary tiles of tap (dy, dx) for every position block (two taps resident)."""
        slot, fresh = taps.get((dy, dx))
        xa = xbase + slot * x_tap
        if fresh:
            shift = grid.tap_offset(g, dy, dx)
            for b, (p0, p1) in enumerate(blocks):
                em.load("in", "wbuf", xa + b * cin * n, xg + (p0 + shift) * cin * eb, p1 - p0,
                        1, cin * eb, cin, eb,
                        comment=f"{layer.name} tap {dy},{dx} positions {p0}:{p1}")
        return xa

    def gather_block(dy, dx, b):
        """Block b's stationary tile of tap (dy, dx), for the tail's passes, which run block
        by block: the whole tap's slot where it is still resident, else block b's part alone
        in a slot of its own (gathering every block again for each block would move the
        tail's taps once per block)."""
        if whole_tail or (dy, dx) in taps.keys:
            return gather(dy, dx)
        slot, fresh = taps.get((dy, dx, b))
        xa = xbase + slot * x_tap
        if fresh:
            p0, p1 = blocks[b]
            em.load("in", "wbuf", xa + b * cin * n,
                    xg + (p0 + grid.tap_offset(g, dy, dx)) * cin * eb, p1 - p0, 1, cin * eb,
                    cin, eb, comment=f"{layer.name} tap {dy},{dx} positions {p0}:{p1}")
        return xa

    def finish(b, m0, m1, piece):
        """Block b's accumulators: transpose round trip, epilogue in pieces, stores; returns
        the epilogue pieces so far in this channel tile (the slot they use)."""
        m = m1 - m0
        p0, p1 = blocks[b]
        pn = p1 - p0
        btag = f"{layer.name} cout {m0}:{m1} positions {p0}:{p1}"
        # channel-major -> channel-last through DRAM (planes = channels, rows = positions)
        em.store("out", "abuf", acc + b * m * n, acc_t + (p0 * cout + m0) * ab, pn, 1,
                 cout * ab, m, ab, comment=f"{btag}: transpose out")
        # the epilogue in pieces of s.part positions, through two slots
        for q0 in range(p0, p1, s.part):
            q1 = min(q0 + s.part, p1)
            tag = btag if (q0, q1) == (p0, p1) else \
                f"{layer.name} cout {m0}:{m1} positions {q0}:{q1}"
            ea = ebase + (piece % 2) * s.part * s.m_tile
            oa = obase + (piece % 2) * s.part * s.m_tile * (2 if epi.residual else 1)
            piece += 1
            em.load("in", "abuf", ea, acc_t + (q0 * cout + m0) * ab, q1 - q0, m, cout * ab,
                    comment=f"{tag}: transpose in")
            runs = layer.runs(q0, q1)
            ra = None
            if epi.residual:
                ra = oa + s.part * s.m_tile
                for a, oy, ox, count in runs:
                    em.load("res", "obuf", ra + (a - q0) * m,
                            res + ((oy * g.ow + ox) * cout + m0) * eb, count, m, cout * eb,
                            comment=f"{tag}: residual")
            ep.emit(ea, oa, ra, (q1 - q0) * m, m, m0, tag)
            for a, oy, ox, count in runs:
                em.store("out", "obuf", oa + (a - q0) * m,
                         y + ((oy * g.ow + ox) * cout + m0) * eb, count, m, cout * eb,
                         comment=f"{tag}: store row {oy}")
        return piece

    if s.stack:
        _stacked(em, layer, m_tiles, dram, key, rows, head, tail, finish,
                 dict(x=xbase, x_tap=x_tap, slots=x_slots, w=wbase, w_tile=w_tile, t=tbase,
                      acc=acc, grid=xg))
        return
    for m0, m1 in m_tiles:
        piece = 0  # epilogue pieces so far in this channel tile (the slot they use)
        m = m1 - m0
        first = [True] * len(blocks)

        def gemm(wa, xa, b, dy, dx, c0, c1):
            p0, p1 = blocks[b]
            pn = p1 - p0
            em.gemm(wa, xa + b * cin * n + c0 * pn, acc + b * m * n, m, c1 - c0, pn,
                    not first[b], comment=f"{layer.name} cout {m0}:{m1} tap {dy},{dx} "
                                          f"cin {c0}:{c1} positions {p0}:{p1}")
            first[b] = False

        def head_tap(wa, tap):
            dy, dx, c0, c1 = tap
            xa = gather(dy, dx)
            for b in range(len(blocks)):
                gemm(wa, xa, b, dy, dx, c0, c1)
        wslot = _stream_head(em, layer, m0, m1, head, (wbase, w_tile, wslot), 1, dram, key,
                             head_tap)
        tail_w = _load_tail(em, layer, m0, m1, tail, tbase, s.m_tile * hw.rows, dram, key)
        for b, (p0, p1) in enumerate(blocks):
            for wa, (dy, dx, c0, c1) in zip(tail_w, tail):
                gemm(wa, gather_block(dy, dx, b), b, dy, dx, c0, c1)
            piece = finish(b, m0, m1, piece)


def _grid(em, layer, dram, key, gbase, gsize, x, xg) -> None:
    """The zero-bordered grid in ibuf at gbase, stored to DRAM at xg for the taps' gathers:
    zero border rows from a zero constant, the image rows with their zero columns."""
    g, cin, eb = layer.geom, layer.geom.cin, em.hw.act_bytes
    wg = layer.grid.wg
    top = g.pads[0] * wg * cin
    bottom = (layer.grid_rows - g.pads[0] - g.h) * wg * cin
    if top or bottom:
        zeros = dram.const(f"{key}.zeros", np.zeros(max(top, bottom), layer.weights.dtype))
    if top:
        em.load_dense("in", "ibuf", gbase, zeros, top, comment=f"{layer.name}: grid top")
    if bottom:
        em.load_dense("in", "ibuf", gbase + gsize - bottom, zeros, bottom,
                      comment=f"{layer.name}: grid bottom")
    h0, w0, sh, sw = layer.sub or (g.h, g.w, 1, 1)  # strided 1x1 convs gather a subsample
    em.load("in", "ibuf", gbase + top, x, g.w, cin, sw * cin * eb, g.h, sh * w0 * cin * eb,
            pads=(g.pads[1], g.pads[3], 0, 0), comment=f"{layer.name}: grid rows")
    em.store_dense("out", "ibuf", gbase, xg, gsize, comment=f"{layer.name}: grid to DRAM")


def _stacked(em, layer, m_tiles, dram, key, rows, head, tail, finish, at) -> None:
    """The passes of the stacked form (compiler.lower.tconv.Stack): per kernel column, the
    stationary tile of every live (grid rows r + i * span) set, stored n x k (wt = 1); per
    (kernel column, channel block) pass, one gemm per tile streaming the kernel rows' weights
    (the last first) into the accumulator blocks r - dy_hi .. r - dy_lo. The last passes run
    tile by tile from resident weights, and a block's epilogue follows the tile that
    completes it."""
    hw, g, s = em.hw, layer.geom, layer.schedule
    st, eb, blocks = layer.stacking, hw.act_bytes, layer.blocks()
    n, cin, wg, R = s.n, g.cin, st.wg, hw.rows
    kb = [(c0, min(c0 + R, cin)) for c0 in range(0, cin, R)]
    whole = whole_columns(st.c, cin, R)  # a slot holds every channel block (as gen_tconv's)
    cols = SlotCache(at["slots"])
    wslot = 0

    def gather(dx, c0, c1):
        """The stationary tiles of kernel column dx (at["slots"] resident; with several parts
        per block, of channel block c0:c1): per part, grid pixels (r + i * span) * wg + dx * dw
        onwards, the dx * dw past the row's end zero-filled (they reach only junk output
        columns); channel-last, n x k per channel block. Returns the slot's address."""
        slot, fresh = cols.get(dx if whole else (dx, c0))
        xa = at["x"] + slot * at["x_tap"]
        shift = dx * g.dw
        if fresh and whole:  # per tile one load: planes = channel blocks
            for t, (r, *_) in enumerate(rows):
                em.load("in", "wbuf", xa + t * cin * n, at["grid"] + (r * wg + shift) * cin * eb,
                        wg - shift, R, cin * eb, len(kb), R * eb, pads=(0, shift, 0, 0),
                        comment=f"{layer.name} column {dx} grid row {r}")
        elif fresh:  # per tile one load of the channel block: planes = parts
            for t, (r, *_) in enumerate(rows):
                em.load("in", "wbuf", xa + t * n * (c1 - c0),
                        at["grid"] + ((r * wg + shift) * cin + c0) * eb, wg - shift, c1 - c0,
                        cin * eb, st.c, st.span * wg * cin * eb, pads=(0, shift, 0, 0),
                        comment=f"{layer.name} column {dx} cin {c0}:{c1} grid rows "
                                f"{r}:{r + st.c * st.span}:{st.span}")
        return xa

    for m0, m1 in m_tiles:
        m = m1 - m0
        piece = 0
        # zero the accumulators: every gemm adds into blocks other gemms also add into
        for b in range(len(blocks)):
            em.vec("vsub", ("abuf", at["acc"] + b * m * n), ("abuf", at["acc"] + b * m * n),
                   m * n, ("abuf", at["acc"] + b * m * n),
                   comment=f"{layer.name} cout {m0}:{m1} block {b}: zero")

        def gemm(wa, xa, t, dx, c0, c1):
            """xa: gather(dx, c0, c1)'s slot."""
            r, lo, hi, _ = rows[t]
            cq = c1 - c0
            tile = xa + t * cin * n + c0 * n if whole else xa + t * n * cq
            em.gemm(wa + (g.kh - 1 - hi) * m * cq, tile,
                    at["acc"] + (r - hi) * m * n, (hi - lo + 1) * m, cq, n, True,
                    comment=f"{layer.name} cout {m0}:{m1} taps {lo}..{hi},{dx} cin {c0}:{c1} "
                            f"grid row {r}", wt=True)

        every = range(len(rows))

        def head_tap(wa, tap):
            _, dx, c0, c1 = tap
            xa = gather(dx, c0, c1)
            for t in every:
                gemm(wa, xa, t, dx, c0, c1)
        wslot = _stream_head(em, layer, m0, m1, head, (at["w"], at["w_tile"], wslot), g.kh,
                             dram, key, head_tap)
        tail_w = _load_tail(em, layer, m0, m1, tail, at["t"], g.kh * s.m_tile * hw.rows, dram,
                            key)
        done = 0  # blocks finished: the ones below the lowest that a later tile feeds
        for t in every:
            for wa, (_, dx, c0, c1) in zip(tail_w, tail):
                gemm(wa, gather(dx, c0, c1), t, dx, c0, c1)
            upto = len(blocks) if t == len(rows) - 1 else \
                min(len(blocks), rows[t + 1][0] - rows[t + 1][2])
            while done < upto:
                piece = finish(done, m0, m1, piece)
                done += 1


def _stream_head(em, layer, m0, m1, head, slots, kt, dram, key, run) -> int:
    """The head passes of output channels m0:m1: per group of s.group taps one weight load
    into the free one of two slots (slots = (first slot's address, slot size, slot in use
    next)), then run(weights address, tap) for each tap of the group, whose weights follow
    each other (kt kernel rows of m x channels each). Returns the slot in use next."""
    wbase, w_tile, wslot = slots
    group, m = layer.schedule.group, m1 - m0
    for li in range(0, len(head), group):
        taps = head[li:li + group]
        wa = wbase + wslot * w_tile
        wslot ^= 1
        packed = layer.packed_weights(m0, m1, taps)
        em.load_dense("w", "ibuf", wa, dram.const(f"{key}.w{m0}.{li}", packed), packed.size,
                      comment=f"{layer.name} cout {m0}:{m1}: weights")
        off = 0
        for tap in taps:
            run(wa + off, tap)
            off += kt * m * (tap[3] - tap[2])
    return wslot


def _load_tail(em, layer, m0, m1, tail, tbase, stride, dram, key) -> list:
    """The tail passes' weights of output channels m0:m1, resident from tbase on, one tap
    every `stride` elements; returns their addresses."""
    out = []
    for ti, tap in enumerate(tail):
        wa = tbase + ti * stride
        packed = layer.packed_weights(m0, m1, [tap])
        em.load_dense("w", "ibuf", wa, dram.const(f"{key}.t{m0}.{ti}", packed), packed.size,
                      comment=f"{layer.name} cout {m0}:{m1}: resident tail weights")
        out.append(wa)
    return out
