"""Vector-unit code of an accumulator tile's epilogue (the sequence qnn ops are defined by):
vrequant with the bias (bias=1; fused ReLU, and a clip its clamps make), vclip, residual add
(vmul, vmul, vadd, vshr), activation; or in fp16 mode bias, activation, residual vadd and the
cast to fp16."""

from __future__ import annotations

import numpy as np

from ...errors import CompilerError
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
        self.mults = self.table + 3 * channels if epi.quantized else self.table + channels
        self.const_addr = dram.const(f"{key}.table", table)
        self.chunk = min(tile, VECTOR_CHUNK)
        if epi.residual and epi.quantized:
            self.scratch = sram.alloc("abuf", self.chunk, "residual product")
            self.lm = sram.alloc("abuf", self.chunk, "lhs multiplier vector")
            self.rm = sram.alloc("abuf", self.chunk, "rhs multiplier vector")
            # the fixed operands of the residual add's steps (Epilogue.vector_steps' roles)
            self.fixed = {"lhs_mult": ("abuf", self.lm), "rhs_mult": ("abuf", self.rm),
                          "scratch": ("abuf", self.scratch), "relu_shift": ("abuf", self.mults + 2)}
        else:
            self.fixed = {}
        # the Epilogue's steps, runs of chunked ones together (emit loops a run per piece)
        self.groups = []
        for step in epi.vector_steps():
            if self.groups and step.chunked and self.groups[-1][0].chunked:
                self.groups[-1].append(step)
            else:
                self.groups.append([step])

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
        """acc (abuf, int32/fp32) -> out (obuf, int8/fp16): the Epilogue's vector_steps;
        res: the residual tile in obuf. out_buf: another buffer for a result kept on chip
        (a fused block's ibuf tiles; int8 without a residual only)."""
        e = self.epi
        if out_buf != "obuf" and (e.residual or not e.quantized):
            raise CompilerError(f"epilogue '{comment}': a result in {out_buf} needs an int8 "
                                "epilogue without a residual add (a lowering bug: please "
                                "report it)")
        table = ("abuf", self.table + (3 if e.quantized else 1) * c0)
        first = True
        for group in self.groups:
            chunks = range(0, length, self.chunk) if group[0].chunked else (0,)
            for o in chunks:  # a run of chunked steps goes piece by piece
                n = min(self.chunk, length - o) if group[0].chunked else length
                for step in group:
                    self._step(step, acc, out, res, o, n, channels, table, out_buf,
                               comment if first else "")
                    first = False

    def _step(self, step, acc, out, res, o, n, channels, table, out_buf, comment):
        """One VectorStep over elements o:o+n of the tile, its roles resolved."""
        def at(role):
            if role == "acc":
                return ("abuf", acc + o)
            if role == "out":
                return (out_buf, out + o)
            if role == "res":
                return ("obuf", res + o)
            return self.fixed[role]
        fields = dict(step.fields)
        if step.src1 == "table":  # the tile's channels, from its first
            src1, fields = table, {"channels": channels, **fields}
        else:
            src1 = at(step.src1) if step.src1 is not None else None
        if comment:
            fields["comment"] = comment
        self.em.vec(step.op, at(step.dst), at(step.src0), n, src1, **fields)
