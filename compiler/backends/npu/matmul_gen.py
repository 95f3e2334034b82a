"""NPU code of a matmul of two activations: per batch element B's array-sized sub-tiles into
wbuf (k x n, or n x k with gemm wt=1), A's row tile into ibuf as k-blocks, one gemm per
(k-block, n-block), one vrequant over the tile, one store per n-block run."""

from __future__ import annotations

import numpy as np

from ...lower.matmul import MatmulLayer, blocks
from .generators import register_generator


def _load_b(em, layer, wbase: int, src: int, kb: list, nb: list, eb: int, tag: str) -> None:
    """B's sub-tile (k-block i, n-block j) lands at wbase + n0_j * k + k0_i * nblk_j: each
    n-block's k-blocks back to back (one DMA per n-block: a plane per full k-block)."""
    b, hw = layer.b, em.hw
    full = [blk for blk in kb if blk[1] - blk[0] == hw.rows]
    rest = [blk for blk in kb if blk[1] - blk[0] != hw.rows]
    for n0, n1 in nb:
        w = n1 - n0
        for group, planes in ((full, len(full)), (rest, len(rest))):
            if not planes:
                continue
            k0, k1 = group[0][0], group[0][1]
            dst = wbase + n0 * layer.k + k0 * w
            if not layer.wt:   # rows of B: kblk x w, DRAM row stride b.row
                em.load("w", "wbuf", dst, src + (k0 * b.row + n0) * eb, k1 - k0, w,
                        b.row * eb, planes, (k1 - k0) * b.row * eb,
                        comment=f"{tag}: B k {k0}:{group[-1][1]} n {n0}:{n1}")
            else:              # stored n x k: w rows of kblk, DRAM row stride b.col
                em.load("w", "wbuf", dst, src + (n0 * b.col + k0) * eb, w, k1 - k0,
                        b.col * eb, planes, (k1 - k0) * eb,
                        comment=f"{tag}: B^T n {n0}:{n1} k {k0}:{group[-1][1]}")


@register_generator(MatmulLayer, items=lambda layer, hw: layer.items())
def gen_matmul(em, layer, items, dram, lowered, key: str) -> None:
    hw, eb = em.hw, em.hw.act_bytes
    k, n, mt = layer.k, layer.n, layer.schedule.m_tile
    kb, nb = blocks(k, hw.rows), blocks(n, hw.cols)
    sram = em.sram()
    wbase = sram.alloc("wbuf", 2 * k * n, "B slots")
    ibase = sram.alloc("ibuf", 2 * mt * k, "A row-tile slots")
    abase = sram.alloc("abuf", 2 * mt * n, "accumulator slots")
    quant = layer.mult is not None
    # int8: vrequant's (mult, shift); float: alpha per row for vrmul (none when alpha is 1)
    table = np.array([layer.mult, layer.shift], np.int32) if quant else \
        np.full(mt, layer.alpha, np.float32) if layer.alpha != 1.0 else None
    norm = layer.row_norm
    if norm is not None:  # P.V of an unnormalized softmax: the per-row multiplier instead
        table = np.full(mt, norm["norm_mult"], np.int32)
        sums = sram.alloc("abuf", 4 * mt, "A row sums (two slots, two parts)")
    rq = sram.alloc("abuf", table.size, "requant pair / alpha rows") if table is not None \
        else None
    obase = sram.alloc("obuf", 2 * mt * n, "out slots")
    a_addr, b_addr, y_addr = (dram.addr(lowered, v.tensor) for v in (layer.a, layer.b,
                                                                      layer.yv))
    if table is not None:
        em.load_dense("w", "abuf", rq, dram.const(f"{key}.rq", table), table.size,
                      comment=f"{layer.name}: {'requant pair' if quant else 'alpha'}")
    loaded, bslot = None, 1
    for i, (t, m0, m1) in enumerate(items):
        rows, tag = m1 - m0, f"{layer.name} [{t}] rows {m0}:{m1}"
        if t != loaded:
            loaded, bslot = t, 1 - bslot
            _load_b(em, layer, wbase + bslot * k * n, b_addr + layer.b.base[t] * eb, kb, nb,
                    eb, f"{layer.name} [{t}]")
        wb = wbase + bslot * k * n
        ia, aa, oa = (base + (i % 2) * mt * size for base, size in
                      ((ibase, k), (abase, n), (obase, n)))
        a = layer.a
        full = [blk for blk in kb if blk[1] - blk[0] == hw.rows]
        for group in (full, [blk for blk in kb if blk[1] - blk[0] != hw.rows]):
            if group:
                k0, k1 = group[0]
                em.load("in", "ibuf", ia + k0 * rows, a_addr + (a.base[t] + m0 * a.row + k0) * eb,
                        rows, k1 - k0, a.row * eb, len(group), (k1 - k0) * eb,
                        comment=f"{tag}: A k {k0}:{group[-1][1]}")
        for n0, n1 in nb:
            for j, (k0, k1) in enumerate(kb):
                em.gemm(ia + k0 * rows, wb + n0 * k + k0 * (n1 - n0), aa + n0 * rows, rows,
                        k1 - k0, n1 - n0, j > 0, comment=f"{tag} n {n0}:{n1} k {k0}:{k1}",
                        wt=layer.wt)
        if norm is not None:
            _row_norm(em, layer, norm, ("ibuf", ia), ("abuf", aa), ("obuf", oa), rows, kb, nb,
                      ("abuf", sums + (i % 2) * 2 * mt), ("abuf", rq), tag)
        elif quant:
            em.vec("vrequant", ("obuf", oa), ("abuf", aa), rows * n, ("abuf", rq),
                   channels=1, zp=0, relu=0, comment=tag)
        elif rq is None:
            em.vec("vcopy", ("obuf", oa), ("abuf", aa), rows * n, comment=tag)
        else:  # alpha * acc, one n-block (rows x its width) at a time
            for n0, n1 in nb:
                em.row("vrmul", ("obuf", oa + n0 * rows), ("abuf", aa + n0 * rows), rows,
                       n1 - n0, ("abuf", rq), shift=0, comment=tag)
        y = layer.yv
        dst = y_addr + (y.base[t] + m0 * y.row) * eb
        full_n = [blk for blk in nb if blk[1] - blk[0] == hw.cols]
        for group in (full_n, [blk for blk in nb if blk[1] - blk[0] != hw.cols]):
            if group:
                n0, n1 = group[0]
                em.store("out", "obuf", oa + n0 * rows, dst + n0 * eb, rows, n1 - n0,
                         y.row * eb, len(group), (n1 - n0) * eb, comment=f"{tag}: store")


def _row_norm(em, layer, norm: dict, a: tuple, acc: tuple, out: tuple, rows: int, kb: list,
              nb: list, sums: tuple, mults: tuple, tag: str) -> None:
    """y = acc / S per row, S the A tile's row sums (qnn.matmul row_norm): vrsum of each
    k-block (rows x kblk at a + k0 * rows), vadd into S, u = vrmul(S, norm_mult) (a rows x 1
    tile), r = vrecip(u), then vrmul(acc, r) per n-block into the int8 output."""
    buf, base = sums
    part = (buf, base + rows)
    for j, (k0, k1) in enumerate(kb):
        em.row("vrsum", sums if j == 0 else part, (a[0], a[1] + k0 * rows), rows, k1 - k0,
               comment=f"{tag}: A row sums k {k0}:{k1}")
        if j:
            em.vec("vadd", sums, sums, rows, part)
    em.row("vrmul", sums, sums, rows, 1, mults, shift=norm["norm_shift"])
    em.vec("vrecip", sums, sums, rows, in_frac=norm["norm_frac"], out_frac=norm["recip_frac"])
    for n0, n1 in nb:
        em.row("vrmul", (out[0], out[1] + n0 * rows), (acc[0], acc[1] + n0 * rows), rows,
               n1 - n0, sums, shift=norm["recip_frac"], comment=tag)
