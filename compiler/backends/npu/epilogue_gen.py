"""Vector-unit code of an accumulator tile's epilogue (the sequence qnn ops are defined by):
vrequant with the bias (bias=1; fused ReLU, and a clip its clamps make), vclip, residual add
(vmul, vmul, vadd, vshr), activation; or in fp16 mode bias, activation, residual vadd and the
cast to fp16."""

from __future__ import annotations

import numpy as np

from ...lower.epilogue import VECTOR_CHUNK, Epilogue


class EpilogueCode:
    """One layer's epilogue resources: the constant table in abuf ((bias, mult, shift)
    triples, vrequant bias=1's; or the float bias; then the add multipliers), and for a
    quantized residual add the scratch and broadcast vectors."""

    def __init__(self, em, sram, dram, epi: Epilogue, channels: int, tile: int, key: str):
        self.em, self.epi = em, epi
        if epi.quantized:
            parts = [np.stack([np.asarray(epi.bias, np.int64), np.asarray(epi.mult, np.int64),
                               np.asarray(epi.shift, np.int64)], axis=1).astype(np.int32).ravel()]
        else:
            parts = [epi.bias.astype(np.float32)]
        if epi.residual and epi.quantized:
            # the add multipliers, and (1, add_shift): vrequant by it is vshr with the ReLU
            parts.append(np.array([epi.lhs_mult, epi.rhs_mult, 1, epi.add_shift], np.int32))
        table = np.concatenate([p.view(np.int32) if p.dtype == np.float32 else p
                                for p in parts]).astype(np.int32)
        if not epi.quantized:
            table = table.view(np.float32)
        self.words = table.size
        self.table = sram.alloc("abuf", table.size, "epilogue table")
        self.bias = self.table  # fp16: the bias; int8: the triples (vrequant bias=1)
        self.rq = self.table
        self.mults = self.table + 3 * channels if epi.quantized else self.table + channels
        self.const_addr = dram.const(f"{key}.table", table)
        self.chunk = min(tile, VECTOR_CHUNK)
        if epi.residual and epi.quantized:
            self.scratch = sram.alloc("abuf", self.chunk, "residual product")
            self.lm = sram.alloc("abuf", self.chunk, "lhs multiplier vector")
            self.rm = sram.alloc("abuf", self.chunk, "rhs multiplier vector")

    def prologue(self, comment: str) -> None:
        """Load the table (one DMA) and build the broadcast multiplier vectors."""
        em = self.em
        em.load_dense("w", "abuf", self.table, self.const_addr, self.words,
                      comment=f"{comment}: epilogue table")
        if self.epi.residual and self.epi.quantized:
            for vec, src in ((self.lm, self.mults), (self.rm, self.mults + 1)):
                # x - x = 0 whatever abuf held, then + mult broadcast (channels=1)
                em.vec("vsub", ("abuf", vec), ("abuf", vec), self.chunk, ("abuf", vec))
                em.vec("vbias", ("abuf", vec), ("abuf", vec), self.chunk, ("abuf", src),
                       channels=1)

    def emit(self, acc: int, out: int, res: int | None, length: int, channels: int, c0: int,
             comment: str, out_buf: str = "obuf") -> None:
        """acc (abuf, int32/fp32) -> out (obuf, int8/fp16); res: the residual tile in obuf.
        out_buf: another buffer for a result kept on chip (a fused block's ibuf tiles; int8
        without a residual only)."""
        em, e = self.em, self.epi
        if e.quantized:  # the bias rides on vrequant (e.fused_bias): one pass, not two
            em.vec("vrequant", (out_buf, out), ("abuf", acc), length, ("abuf", self.rq + 3 * c0),
                   channels=channels, zp=e.out_zp, relu=int(e.requant_relu), bias=1,
                   comment=comment)
            if e.act == "clip" and not e.clip_in_requant:
                em.vec("vclip", (out_buf, out), (out_buf, out), length, lo=int(e.act_lo),
                       hi=int(e.act_hi))
            if e.residual:
                for o in range(0, length, self.chunk):
                    n = min(self.chunk, length - o)
                    em.vec("vmul", ("abuf", acc + o), ("obuf", out + o), n, ("abuf", self.lm))
                    em.vec("vmul", ("abuf", self.scratch), ("obuf", res + o), n,
                           ("abuf", self.rm))
                    em.vec("vadd", ("abuf", acc + o), ("abuf", acc + o), n,
                           ("abuf", self.scratch))
                    if e.post_act == "relu":  # sat8(max(rs(s), 0)) in one pass, not two
                        em.vec("vrequant", ("obuf", out + o), ("abuf", acc + o), n,
                               ("abuf", self.mults + 2), channels=1, relu=1)
                    else:
                        em.vec("vshr", ("obuf", out + o), ("abuf", acc + o), n,
                               shift=e.add_shift)
                if e.post_act != "relu":
                    self._act("obuf", out, length, e.post_act, e.post_lo, e.post_hi)
            return
        em.vec("vbias", ("abuf", acc), ("abuf", acc), length, ("abuf", self.bias + c0),
               channels=channels, comment=comment)
        self._act("abuf", acc, length, e.act, e.act_lo, e.act_hi)
        if e.residual:
            em.vec("vadd", ("abuf", acc), ("abuf", acc), length, ("obuf", res))
            self._act("abuf", acc, length, e.post_act, e.post_lo, e.post_hi)
        em.vec("vcopy", ("obuf", out), ("abuf", acc), length)

    def _act(self, buffer: str, addr: int, length: int, kind: str, lo, hi) -> None:
        if kind == "relu":
            self.em.vec("vrelu", (buffer, addr), (buffer, addr), length)
        elif kind == "clip":
            self.em.vec("vclip", (buffer, addr), (buffer, addr), length, lo=int(lo), hi=int(hi))
