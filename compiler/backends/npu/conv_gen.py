"""NPU code of a lowered conv: input and weight tiles streamed through slot caches, one `conv`
instruction per tile (hardware im2col, all kernel taps and input-channel passes), then the
vector epilogue and a strided store of the output-channel block."""

from __future__ import annotations

from ...lower.cache import SlotCache
from ...lower.conv import ConvLayer, split_rows, uses_dwconv
from .epilogue_gen import EpilogueCode
from .generators import register_generator, split


def conv_work(layer, hw, core: int, cores: int) -> list:
    """Output-channel blocks (each core its own weights) or output rows (each core its own
    input rows), as compiler.lower.conv.split_rows chose for the tile sizes."""
    if layer.cores is not None:  # the lowering chose fewer cores: the others idle
        if core >= layer.cores:
            return []
        cores = layer.cores
    tiles = layer.tiles(hw)
    blocks = sorted({t.c0 for t in tiles})
    by_rows = layer.by_rows if layer.by_rows is not None else \
        split_rows(layer.geom, cores, hw.cols)
    if cores == 1 or not by_rows:
        mine = set(split(blocks, cores, core))
        return [t for t in tiles if t.c0 in mine]
    spatial = sorted({(t.image, t.r0) for t in tiles})
    mine = set(split(spatial, cores, core))
    return [t for t in tiles if (t.image, t.r0) in mine]


def conv_sram(layer, hw) -> dict:
    """Elements of each buffer the conv's slots take on one core (gen_conv's allocations, the
    epilogue's abuf words aside)."""
    g, s = layer.geom, layer.schedule
    cb = min(hw.cols, g.cout)
    in_rows = min((s.rows - 1) * g.sh + (g.kh - 1) * g.dh + 1, g.h)
    acc_tile = s.rows * g.ow * cb
    return {"ibuf": s.in_slots * in_rows * g.w * s.cin_slice,
            "wbuf": s.w_slots * g.kh * g.kw * (1 if uses_dwconv(g, hw) else s.cin_slice) * cb,
            "obuf": s.out_slots * acc_tile * (2 if layer.epilogue.residual else 1)}


@register_generator(ConvLayer, work=conv_work)
def gen_conv(em, layer, tiles, dram, lowered, key: str) -> None:
    hw, g, s, epi = em.hw, layer.geom, layer.schedule, layer.epilogue
    eb = hw.act_bytes
    cb = min(hw.cols, g.cout)
    sram = em.sram()
    in_rows = min((s.rows - 1) * g.sh + (g.kh - 1) * g.dh + 1, g.h)
    cq_max = max(t.q1 - t.q0 for t in tiles)
    in_tile = in_rows * g.w * cq_max
    dw = uses_dwconv(g, hw)  # dwconv tiles: kh x kw x channels weights, one pass of taps
    w_tile = g.kh * g.kw * (1 if dw else cq_max) * cb
    acc_tile = s.rows * g.ow * cb
    ep = EpilogueCode(em, sram, dram, epi, g.cout, acc_tile, key)
    ibase = sram.alloc("ibuf", s.in_slots * in_tile, "input slots")
    wbase = sram.alloc("wbuf", s.w_slots * w_tile, "weight slots")
    abase = sram.alloc("abuf", s.acc_slots * acc_tile, "accumulator slots")
    obase = sram.alloc("obuf", s.out_slots * acc_tile * (2 if epi.residual else 1), "out slots")
    x, y = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    res = dram.addr(lowered, epi.residual) if epi.residual else None
    # weights: every (block, slice) tile packed contiguously, in first-use order
    waddr = {}
    for t in tiles:
        if t.w_key not in waddr:
            waddr[t.w_key] = dram.const(f"{key}.w{t.c0}.{t.q0}",
                                        layer.block_weights(t.c0, t.c1, t.q0, t.q1, dw))
    ep.prologue(layer.name)
    in_cache, w_cache = SlotCache(s.in_slots), SlotCache(s.w_slots)
    acc_slot, out_slot, acc_of = 0, 0, {}
    for t in tiles:
        i0, i1, pt, pb = g.in_rows(t.r0, t.r1)
        cq, cbt, m = t.q1 - t.q0, t.c1 - t.c0, (t.r1 - t.r0) * g.ow
        tag = f"{layer.name} rows {t.r0}:{t.r1} cout {t.c0}:{t.c1} cin {t.q0}:{t.q1}"
        slot, fresh = in_cache.get(t.in_key)
        ia = ibase + slot * in_tile
        if fresh and layer.sub is not None:  # gather every sh-th row, sw-th pixel
            h0, w0, sh, sw = layer.sub
            em.load("in", "ibuf", ia, x + ((t.image * h0 + i0 * sh) * w0 * g.cin + t.q0) * eb,
                    g.w, cq, sw * g.cin * eb, i1 - i0, sh * w0 * g.cin * eb,
                    comment=f"{tag}: input rows {i0 * sh}:{i1 * sh}:{sh}")
        elif fresh:
            src = x + ((t.image * g.h + i0) * g.w * g.cin + t.q0) * eb
            em.rows_io("load", "in", "ibuf", ia, src, i1 - i0, g.w, cq, g.cin, eb,
                       f"{tag}: input rows {i0}:{i1}")
        slot, fresh = w_cache.get(t.w_key)
        wa = wbase + slot * w_tile
        if fresh:
            em.load_dense("w", "wbuf", wa, waddr[t.w_key],
                          g.kh * g.kw * (1 if dw else cq) * cbt,
                          comment=f"{tag}: weights")
        if t.first:
            acc_of[t.acc_key] = abase + acc_slot * acc_tile
            acc_slot = (acc_slot + 1) % s.acc_slots
        aa = acc_of[t.acc_key]
        regs = {"conv_kh": g.kh, "conv_kw": g.kw, "conv_stride_h": g.sh, "conv_stride_w": g.sw,
                "conv_pad_top": pt, "conv_pad_left": g.pads[1], "conv_pad_bottom": pb,
                "conv_pad_right": g.pads[3], "conv_dilation_h": g.dh, "conv_dilation_w": g.dw}
        if dw:
            em.dwconv(ia, wa, aa, i1 - i0, g.w, cbt, not t.first, regs, m * cbt, g.kh, g.kw,
                      m, comment=tag)
        else:
            em.conv(ia, wa, aa, i1 - i0, g.w, cq, cbt, not t.first, regs, m * cbt, g.kh, g.kw,
                    m, comment=tag)
        if not t.last:
            continue
        oa = obase + out_slot * acc_tile * (2 if epi.residual else 1)
        out_slot = (out_slot + 1) % s.out_slots
        ra = None
        if epi.residual:
            ra = oa + acc_tile
            _rows_io(em, "load", "res", ra, res, t, g, cbt, eb, f"{tag}: residual")
        ep.emit(aa, oa, ra, m * cbt, cbt, t.c0, tag)
        _rows_io(em, "store", "out", oa, y, t, g, cbt, eb, f"{tag}: store")


def _rows_io(em, kind: str, role: str, sram: int, base: int, t, g, cbt: int, eb: int,
             comment: str) -> None:
    """Output rows [r0, r1) x channels [c0, c1) of an NHWC tensor shaped like the output."""
    addr = base + ((t.image * g.oh + t.r0) * g.ow * g.cout + t.c0) * eb
    em.rows_io(kind, role, "obuf", sram, addr, t.r1 - t.r0, g.ow, cbt, g.cout, eb, comment)
