"""Instruction builders for one core and one layer: each returns an Op with its isa
Instruction, estimated cycles, memory effects and register needs, and hands it to the hazard
tracker."""

from __future__ import annotations

from functools import lru_cache

from isa.codec import make_instruction
from isa.errors import EncodingError
from isa.operands import dma_elems, dram_end, src1_elems

from ...errors import CompilerError
from ...lower.cost import FIELD_MAX, ROLES, Hw  # noqa: F401 (ROLES: re-exported)
from ...lower.cost import channel_map as lower_channel_map
from .ops import NO_REGS, Op

_FLAT = object()  # the first element of a builder's own keys in Emitter.made (see there)
_PLANES, _ROWS, _COLS, _PAD = (FIELD_MAX[f] for f in ("planes", "rows", "cols", "pad"))


def channel_map(engines: int) -> dict:
    """DMA unit per traffic role (the cost model's compiler.lower.cost.channel_map)."""
    return {r: f"dma{c}" for r, c in lower_channel_map(engines).items()}


class SramPlan:
    """Bump allocation of one layer's regions in the four buffers, checked against capacity.

    Consecutive layers allocate from opposite ends (`top_down`), so while one layer still
    computes, the next can already load into SRAM the first one does not use."""

    def __init__(self, hw: Hw, layer: str, top_down: bool = False):
        self.hw, self.layer, self.top_down = hw, layer, top_down
        self.used = dict.fromkeys(hw.buffer_elems, 0)

    def alloc(self, buffer: str, elems: int, what: str) -> int:
        used, cap = self.used[buffer], self.hw.buffer_elems[buffer]
        if used + elems > cap:
            raise CompilerError(f"layer '{self.layer}': {what} needs {elems} {buffer} elements "
                                f"with {used} in use, past its {cap}; the schedule does not fit "
                                "(a tile-chooser bug: please report it)")
        self.used[buffer] = used + elems
        return cap - used - elems if self.top_down else used


class Emitter:
    """Collects one core's ops of one layer; DRAM addresses are bytes, SRAM are elements."""

    def __init__(self, hw: Hw, tracker, layer_index: int, layer_name: str,
                 made: dict | None = None, costs: dict | None = None):
        self.hw = hw
        self.tracker = tracker
        self.layer = layer_index
        self.name = layer_name
        # (mnemonic, *fields) -> Instruction, shared by the Emitters of one program: 60% of
        # a model's instructions repeat one already made (a vector op on a reused slot, a
        # reloaded weight tile), and one object is built, encoded and checked once. The
        # frequent builders look theirs up first by their arguments, under keys that start
        # with _FLAT (a gemm's: the Instruction; a vector op's: it and its src1 extent; a
        # DMA's: the whole transfer)
        self.made = {} if made is None else made
        # (mnemonic, shape) -> the cost model's cycles, shared likewise: a program asks for a
        # few hundred shapes some 10^4 times (the rules cannot change during one codegen)
        self.costs = {} if costs is None else costs
        self.chan = channel_map(hw.dma_engines)
        self.chan_index = {role: int(unit[3:]) for role, unit in self.chan.items()}  # dmaN -> N
        self.ops: list = []
        self.eb = dict(hw.elem_bytes)

    def sram(self) -> SramPlan:
        return SramPlan(self.hw, self.name, top_down=self.layer % 2 == 1)

    def ins(self, mnemonic: str, **fields):
        """The validated isa Instruction (the same object for the same fields); a field out
        of its range is a code generator bug."""
        key = (mnemonic, *fields.items())
        ins = self.made.get(key)
        if ins is None:
            try:
                ins = self.made[key] = make_instruction(mnemonic, **fields)
            except EncodingError as e:
                raise CompilerError(f"layer '{self.name}': {e} (a code generator bug: please "
                                    "report it)") from None
        return ins

    def cycles(self, shape: tuple, rule, *args, **kwargs) -> int:
        """rule(*args, **kwargs), the cost model's cycles of an instruction of this `shape`,
        asked once per shape for the whole program (the shared `costs`)."""
        cycles = self.costs.get(shape)
        if cycles is None:
            cycles = self.costs[shape] = rule(*args, **kwargs)
        return cycles

    def add(self, op: Op) -> Op:
        op.layer = self.layer
        self.tracker.add(op)
        self.ops.append(op)
        return op

    # ---------------------------------------------------------------- DMA
    def _dma_check(self, what: str, planes: int, rows: int, cols: int, pads=(0, 0, 0, 0)):
        if 1 <= planes <= _PLANES and 1 <= rows <= _ROWS and 1 <= cols <= _COLS and \
                max(pads) <= _PAD:  # (every DMA asks: the loop below only when one is off)
            return
        for field, v in (("planes", planes), ("rows", rows), ("cols", cols)):
            if not 1 <= v <= FIELD_MAX[field]:
                raise CompilerError(f"layer '{self.name}': {what} {field}={v} outside "
                                    f"1..{FIELD_MAX[field]} (a lowering bug: please report it)")
        if max(pads) > FIELD_MAX["pad"]:
            raise CompilerError(f"layer '{self.name}': {what} padding {pads} exceeds "
                                f"{FIELD_MAX['pad']}")

    def load(self, role: str, buffer: str, sram: int, dram: int, rows: int, cols: int,
             stride: int, planes: int = 1, plane_stride: int = 0, pads=(0, 0, 0, 0),
             comment: str = "") -> Op:
        """DRAM -> SRAM; `stride`/`plane_stride` in bytes; pads = (top, bottom, left, right)."""
        chan = self.chan_index[role]
        # everything below is a function of the arguments: met again (a weight tile
        # reloaded), the transfer is the one made before
        key = (_FLAT, "load", chan, buffer, sram, dram, rows, cols, stride, pads, planes,
               plane_stride)
        hit = self.made.get(key)
        if hit is None:
            self._dma_check("load", planes, rows, cols, pads)
            eb = self.eb[buffer]
            pt, pb, pl, pr = pads
            count, extent, fill = dma_elems(dict(rows=rows, cols=cols, pad_top=pt,
                                                 pad_bottom=pb, pad_left=pl, pad_right=pr),
                                            planes)
            nbytes = count * eb
            last = dram_end(dict(dram=dram, rows=rows, cols=cols, stride=stride), planes,
                            plane_stride, eb)
            ins = self.ins("load", chan=chan, sram=(buffer, sram), dram=dram, rows=rows,
                           cols=cols, stride=stride, pad_top=pt, pad_bottom=pb, pad_left=pl,
                           pad_right=pr)
            regs = {"dma_planes": planes, "dma_plane_stride": plane_stride if planes > 1 else 0}
            cycles = self.cycles(("load", nbytes, fill), self.hw.dma, nbytes, fill)
            hit = self.made[key] = (ins, cycles, (("dram", dram, last),),
                                    ((buffer, sram, sram + extent),), regs, nbytes, fill)
        ins, cycles, reads, writes, regs, nbytes, fill = hit
        # (positional: the most frequent Ops are built without keyword parsing; the regs
        # mapping is shared by the ops of one transfer: nothing writes an op's regs)
        return self.add(Op(self.chan[role], ins, cycles, reads, writes, regs, comment, nbytes,
                           fill))

    def store(self, role: str, buffer: str, sram: int, dram: int, rows: int, cols: int,
              stride: int, planes: int = 1, plane_stride: int = 0, comment: str = "") -> Op:
        chan = self.chan_index[role]
        key = (_FLAT, "store", chan, buffer, sram, dram, rows, cols, stride, planes,
               plane_stride)
        hit = self.made.get(key)
        if hit is None:
            self._dma_check("store", planes, rows, cols)
            eb = self.eb[buffer]
            count = planes * rows * cols
            last = dram_end(dict(dram=dram, rows=rows, cols=cols, stride=stride), planes,
                            plane_stride, eb)
            ins = self.ins("store", chan=chan, sram=(buffer, sram), dram=dram, rows=rows,
                           cols=cols, stride=stride)
            regs = {"dma_planes": planes, "dma_plane_stride": plane_stride if planes > 1 else 0}
            cycles = self.cycles(("store", count * eb), self.hw.dma, count * eb, mnemonic="store")
            hit = self.made[key] = (ins, cycles, ((buffer, sram, sram + count),),
                                    (("dram", dram, last),), regs, count * eb)
        ins, cycles, reads, writes, regs, nbytes = hit
        return self.add(Op(self.chan[role], ins, cycles, reads, writes, regs, comment, nbytes))

    def load_dense(self, role: str, buffer: str, sram: int, dram: int, count: int,
                   comment: str = "") -> Op:
        """A contiguous run of `count` elements, shaped into DMA rows/cols/planes."""
        eb = self.eb[buffer]
        rows, cols, planes = _shape(count)
        return self.load(role, buffer, sram, dram, rows, cols, cols * eb, planes,
                         rows * cols * eb, comment=comment)

    def store_dense(self, role: str, buffer: str, sram: int, dram: int, count: int,
                    comment: str = "") -> Op:
        eb = self.eb[buffer]
        rows, cols, planes = _shape(count)
        return self.store(role, buffer, sram, dram, rows, cols, cols * eb, planes,
                          rows * cols * eb, comment=comment)

    def rows_io(self, kind: str, role: str, buffer: str, sram: int, dram: int, rows: int,
                w: int, cs: int, c: int, eb: int, comment: str = "") -> Op:
        """`rows` NHWC rows of width `w`, `cs` of their `c` channels, `eb` bytes each: one DMA
        row per image row when the channels are whole and fit a cols field, else one plane
        per row of `w` rows of `cs`."""
        if cs == c and w * cs <= FIELD_MAX["cols"]:
            args, kw = (rows, w * cs, w * cs * eb), {}
        else:
            args, kw = (w, cs, c * eb), {"planes": rows, "plane_stride": w * c * eb}
        dma = self.load if kind == "load" else self.store
        return dma(role, buffer, sram, dram, *args, comment=comment, **kw)

    # ---------------------------------------------------------------- matrix
    def conv(self, ibuf: int, wbuf: int, abuf: int, in_h: int, in_w: int, cin: int, cout: int,
             acc: bool, regs: dict, out_elems: int, kh: int, kw: int, m: int,
             comment: str = "") -> Op:
        ins = self.ins("conv", ibuf=ibuf, wbuf=wbuf, abuf=abuf, in_h=in_h, in_w=in_w, cin=cin,
                       cout=cout, acc=1 if acc else 0)
        reads = [("ibuf", ibuf, ibuf + in_h * in_w * cin),
                 ("wbuf", wbuf, wbuf + kh * kw * cin * cout)]
        if acc:
            reads.append(("abuf", abuf, abuf + out_elems))
        cycles = self.cycles(("conv", m, kh, kw, cin, cout), self.hw.conv, m, kh, kw, cin, cout)
        return self.add(Op("matrix", ins, cycles, reads=tuple(reads),
                           writes=(("abuf", abuf, abuf + out_elems),), regs=regs,
                           comment=comment, macs=m * kh * kw * cin * cout))

    def dwconv(self, ibuf: int, wbuf: int, abuf: int, in_h: int, in_w: int, channels: int,
               acc: bool, regs: dict, out_elems: int, kh: int, kw: int, m: int,
               comment: str = "") -> Op:
        """A depthwise-mode tile: channel c of the output from channel c of the input."""
        ins = self.ins("dwconv", ibuf=ibuf, wbuf=wbuf, abuf=abuf, in_h=in_h, in_w=in_w,
                       channels=channels, acc=1 if acc else 0)
        reads = [("ibuf", ibuf, ibuf + in_h * in_w * channels),
                 ("wbuf", wbuf, wbuf + kh * kw * channels)]
        if acc:
            reads.append(("abuf", abuf, abuf + out_elems))
        cycles = self.cycles(("dwconv", m, kh, kw, channels), self.hw.dwconv, m, kh, kw, channels)
        return self.add(Op("matrix", ins, cycles,
                           reads=tuple(reads), writes=(("abuf", abuf, abuf + out_elems),),
                           regs=regs, comment=comment, macs=m * kh * kw * channels))

    def gemm(self, ibuf: int, wbuf: int, abuf: int, m: int, k: int, n: int, acc: bool,
             comment: str = "", wt: bool = False) -> Op:
        """wt: the wbuf tile is stored n x k (an activation's rows, e.g. K of Q.K^T)."""
        a = 1 if acc else 0
        key = (_FLAT, "gemm", ibuf, wbuf, abuf, m, k, n, a, wt)
        ins = self.made.get(key)
        if ins is None:
            fields = dict(ibuf=ibuf, wbuf=wbuf, abuf=abuf, m=m, k=k, n=n, acc=a)
            if wt:  # only then: every other program's instructions stay the objects they were
                fields["wt"] = 1
            ins = self.made[key] = self.ins("gemm", **fields)
        cycles = self.cycles(("gemm", m, k, n), self.hw.gemm, m, k, n)
        out = abuf + m * n
        reads = (("ibuf", ibuf, ibuf + m * k), ("wbuf", wbuf, wbuf + k * n), ("abuf", abuf, out)) \
            if acc else (("ibuf", ibuf, ibuf + m * k), ("wbuf", wbuf, wbuf + k * n))
        return self.add(Op("matrix", ins, cycles, reads, (("abuf", abuf, out),), NO_REGS,
                           comment, 0, 0, 0, -1, (), m * k * n))

    # ---------------------------------------------------------------- vector
    def vec(self, mnemonic: str, dst: tuple, src0: tuple, length: int, src1: tuple = None,
            comment: str = "", **extra) -> Op:
        """dst/src0/src1 are (buffer, address); extra fields follow the operands."""
        if not 1 <= length <= FIELD_MAX["len"]:
            raise CompilerError(f"layer '{self.name}': {mnemonic} len={length} outside "
                                f"1..{FIELD_MAX['len']} (a lowering bug: please report it)")
        key = (_FLAT, mnemonic, dst, src0, length, src1, *extra.items())
        hit = self.made.get(key)
        if hit is None:
            n1 = src1_elems(mnemonic, {"len": length, **extra}) if src1 is not None else 0
            if src1 is not None:  # len, or its table's size
                extra["src1"] = src1
            hit = self.made[key] = (self.ins(mnemonic, dst=dst, src0=src0, len=length,
                                             **extra), n1)
        ins, n1 = hit
        reads = ((src0[0], src0[1], src0[1] + length), (src1[0], src1[1], src1[1] + n1)) \
            if src1 is not None else ((src0[0], src0[1], src0[1] + length),)
        # a rule may read a field besides len: vrequant's bias (one more stage)
        bias = extra.get("bias", 0)
        cycles = self.cycles((mnemonic, length, bias), self.hw.cycles, mnemonic, len=length,
                             bias=bias)
        return self.add(Op("vector", ins, cycles, reads,
                           ((dst[0], dst[1], dst[1] + length),), NO_REGS, comment, 0, 0, 0,
                           -1, ()))

    def row(self, mnemonic: str, dst: tuple, src0: tuple, rows: int, cols: int,
            src1: tuple = None, comment: str = "", **extra) -> Op:
        """A row instruction over a rows x cols tile at src0: a reduction (vrmax, vrsum)
        writes `rows` values at dst; a row broadcast (vrsub, vrmul) reads `rows` values at
        src1 and writes the tile."""
        tile = rows * cols
        reads = [(src0[0], src0[1], src0[1] + tile)]
        if src1 is not None:
            reads.append((src1[0], src1[1], src1[1] + rows))
            extra["src1"] = src1
        ins = self.ins(mnemonic, dst=dst, src0=src0, rows=rows, cols=cols, **extra)
        written = tile if src1 is not None else rows
        return self.add(Op("vector", ins, self.hw.cycles(mnemonic, rows=rows, cols=cols),
                           reads=tuple(reads), writes=((dst[0], dst[1], dst[1] + written),),
                           comment=comment))

    def pool(self, mnemonic: str, dst: tuple, src: tuple, in_h: int, in_w: int, channels: int,
             out_elems: int, regs: dict, cycles: int, comment: str = "") -> Op:
        ins = self.ins(mnemonic, dst=dst, src0=src, in_h=in_h, in_w=in_w, channels=channels)
        return self.add(Op("vector", ins, cycles,
                           reads=((src[0], src[1], src[1] + in_h * in_w * channels),),
                           writes=((dst[0], dst[1], dst[1] + out_elems),), regs=regs,
                           comment=comment))


@lru_cache(maxsize=None)  # a pure function of count, searched from 4095 down: ask once
def _shape(count: int) -> tuple:
    """(rows, cols, planes) with rows*cols*planes == count and each within its field."""
    lim = FIELD_MAX["cols"]
    if count <= lim:
        return 1, count, 1
    for cols in range(lim, 0, -1):
        if count % cols == 0:
            rest = count // cols
            if rest <= lim:
                return rest, cols, 1
            for rows in range(lim, 0, -1):
                if rest % rows == 0 and rest // rows <= FIELD_MAX["planes"]:
                    return rows, cols, rest // rows
    raise CompilerError(f"a contiguous transfer of {count} elements cannot be shaped into "
                        f"rows x cols x planes <= {lim} x {lim} x {FIELD_MAX['planes']}")
