"""NPU code of a fused inverted-residual block (compiler.lower.fused_block): per band of output
rows, per 16-channel block of the expanded tensor, expand conv -> epilogue into ibuf ->
dwconv (or block-diagonal conv) -> epilogue into ibuf -> gemms into the project's
accumulators; then the project's epilogue with its residual and the store. Only the block's
input, output and residual cross DRAM."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...lower.conv import uses_dwconv
from ...lower.fused_block import FusedBlockLayer, new_rows, piece_rows, pieces
from .epilogue_gen import EpilogueCode
from .generators import register_generator


def _pack(dram, key: str, tiles: list) -> tuple:
    """One constant of the tiles back to back: (DRAM address, element offsets, total)."""
    offsets, at = [], 0
    for t in tiles:
        offsets.append(at)
        at += t.size
    return dram.const(key, np.concatenate([t.ravel() for t in tiles])), offsets, at


@register_generator(FusedBlockLayer, items=lambda layer, hw: layer.bands())
def gen_fused_block(em, layer, bands, dram, lowered, key: str) -> None:
    hw, s = em.hw, layer.schedule
    ge, gd, gp = layer.expand, layer.dw, layer.project
    eb, cols = hw.act_bytes, hw.cols
    ce, cout = gd.cout, gp.cout
    cin = ge.cin if ge else gd.cin
    W, ow = gd.w, gd.ow
    dwconv = uses_dwconv(gd, hw)
    jb, pb = layer.blocks(ce, cols), layer.blocks(cout, cols)
    cb, cbp = max(c1 - c0 for c0, c1 in jb), max(p1 - p0 for p0, p1 in pb)
    plan = layer.bands()
    n_in = max(b.i1 - b.i0 for b in plan)
    n_new = new_rows(plan, hw.num_cores)
    m_in, m_new, m_out = n_in * W, n_new * W, s.rows * ow
    m_piece = piece_rows(n_new, s.e_parts) * W  # the expand accumulators hold one piece
    res = layer.epi_p.residual
    sram = em.sram()
    ee = EpilogueCode(em, sram, dram, layer.epi_e, ce, m_piece * cb, f"{key}.e") if ge else None
    ed = EpilogueCode(em, sram, dram, layer.epi_d, ce, m_out * cb, f"{key}.d")
    ep = EpilogueCode(em, sram, dram, layer.epi_p, cout, m_out * cbp, f"{key}.p")
    xs = sram.alloc("ibuf", 2 * m_new * cin, "block input slots") if ge else None
    # kept halos: a tile per channel block, holding a band's expanded rows from one band to
    # the next; else two slots used in turn
    xe = sram.alloc("ibuf", (len(jb) if s.keep else 2) * m_in * cb, "expanded tiles")
    xd = sram.alloc("ibuf", 2 * m_out * cb, "depthwise output slots")
    # weights, all resident: expand (cin x block) per block, depthwise taps, project (block x
    # output block) per pair
    we = [np.ascontiguousarray(layer.we[0, 0, :, c0:c1]) for c0, c1 in jb] if ge else []
    wd = [layer.dw_weights(c0, c1, dwconv) for c0, c1 in jb]
    wp = [np.ascontiguousarray(layer.wp[0, 0, c0:c1, p0:p1]) for c0, c1 in jb for p0, p1 in pb]
    packs = [(name, tiles) for name, tiles in (("we", we), ("wd", wd), ("wp", wp)) if tiles]
    waddr = {}
    for name, tiles in packs:
        addr, offsets, total = _pack(dram, f"{key}.{name}", tiles)
        base = sram.alloc("wbuf", total, f"{name} weights")
        waddr[name] = [base + o for o in offsets]
        em.load_dense("w", "wbuf", base, addr, total, comment=f"{layer.name}: {name} weights")
    ea = sram.alloc("abuf", 2 * m_piece * cb, "expand accumulator slots") if ge else None
    da = sram.alloc("abuf", 2 * m_out * cb, "depthwise accumulator slots")
    pa = sram.alloc("abuf", s.p_slots * m_out * cout, "project accumulator sets")
    oa = sram.alloc("obuf", 2 * m_out * cbp * (2 if res else 1), "out slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    r_addr = dram.addr(lowered, res) if res else None
    for e in (ee, ed, ep):
        if e is not None:
            e.prologue(layer.name)
    tile = 0   # rotates the expanded / depthwise tile slots
    piece = 0  # rotates the expand accumulator slots
    out = 0    # rotates the out slots
    one = {"conv_kh": 1, "conv_kw": 1, "conv_stride_h": 1, "conv_stride_w": 1,
           "conv_pad_top": 0, "conv_pad_left": 0, "conv_pad_bottom": 0, "conv_pad_right": 0,
           "conv_dilation_h": 1, "conv_dilation_w": 1}
    prev = None
    for bi, b in enumerate(bands):
        if prev is None and b.kept:  # the band before is another core's: compute its halo
            b = replace(b, kept=0)
        r0, r1, i0, i1, pt, pbot = b.r0, b.r1, b.i0, b.i1, b.pt, b.pb
        n0, n1 = b.new
        mi, mo = (n1 - n0) * W, (r1 - r0) * ow
        tag = f"{layer.name} rows {r0}:{r1}"
        pset = pa + (bi % s.p_slots) * m_out * cout
        if ge and n1 > n0:  # (a last band may find all its rows kept from the one before)
            xa = xs + (bi % 2) * m_new * cin
            em.rows_io("load", "in", "ibuf", xa, x + n0 * W * cin * eb, n1 - n0, W, cin, cin,
                       eb, f"{tag}: input rows {n0}:{n1}")
        regs = {"conv_kh": gd.kh, "conv_kw": gd.kw, "conv_stride_h": gd.sh,
                "conv_stride_w": gd.sw, "conv_pad_top": pt, "conv_pad_left": gd.pads[1],
                "conv_pad_bottom": pbot, "conv_pad_right": gd.pads[3], "conv_dilation_h": 1,
                "conv_dilation_w": 1}
        for j, (c0, c1) in enumerate(jb):
            c = c1 - c0
            slot = tile % 2
            tile += 1
            xt = xe + (j if s.keep else slot) * m_in * cb
            dt = xd + slot * m_out * cb
            jt = f"{tag} channels {c0}:{c1}"
            if b.kept:  # the halo rows, from where the band before left them to the top
                em.vec("vcopy", ("ibuf", xt), ("ibuf", xt + (i0 - prev.i0) * W * c),
                       b.kept * W * c, comment=f"{jt}: kept halo rows {i0}:{n0}")
            if ge and n1 > n0:
                for a0, a1 in pieces(n0, n1, s.e_parts):
                    acc = ea + (piece % 2) * m_piece * cb
                    piece += 1
                    mp = (a1 - a0) * W
                    part = f" rows {a0}:{a1}" if s.e_parts > 1 else ""
                    em.conv(xa + (a0 - n0) * W * cin, waddr["we"][j], acc, a1 - a0, W, cin, c,
                            False, one, mp * c, 1, 1, mp, comment=f"{jt}: expand{part}")
                    ee.emit(acc, xt + (b.kept + a0 - n0) * W * c, None, mp * c, c, c0,
                            f"{jt}: expand epilogue{part}", out_buf="ibuf")
            elif not ge:
                em.rows_io("load", "in", "ibuf", xt, x + (i0 * W * ce + c0) * eb, i1 - i0, W,
                           c, ce, eb, f"{jt}: input rows {i0}:{i1}")
            acc = da + slot * m_out * cb
            if dwconv:
                em.dwconv(xt, waddr["wd"][j], acc, i1 - i0, W, c, False, regs, mo * c, gd.kh,
                          gd.kw, mo, comment=f"{jt}: depthwise")
            else:
                em.conv(xt, waddr["wd"][j], acc, i1 - i0, W, c, c, False, regs, mo * c, gd.kh,
                        gd.kw, mo, comment=f"{jt}: depthwise (block-diagonal)")
            ed.emit(acc, dt, None, mo * c, c, c0, f"{jt}: depthwise epilogue", out_buf="ibuf")
            for p, (p0, p1) in enumerate(pb):
                em.gemm(dt, waddr["wp"][j * len(pb) + p], pset + p0 * mo, mo, c, p1 - p0,
                        j > 0, comment=f"{jt}: project into {p0}:{p1}")
        for p0, p1 in pb:
            q = p1 - p0
            ot = oa + (out % 2) * m_out * cbp * (2 if res else 1)
            out += 1
            rt = None
            dst = ((r0 * ow) * cout + p0) * eb
            if res:
                rt = ot + m_out * cbp
                em.rows_io("load", "res", "obuf", rt, r_addr + dst, r1 - r0, ow, q, cout, eb,
                           f"{tag} channels {p0}:{p1}: residual")
            ep.emit(pset + p0 * mo, ot, rt, mo * q, q, p0, f"{tag} channels {p0}:{p1}: project")
            em.rows_io("store", "out", "obuf", ot, y + dst, r1 - r0, ow, q, cout, eb,
                       f"{tag} channels {p0}:{p1}: store")
        prev = b
