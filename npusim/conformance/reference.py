"""The reference machine: runs a conformance program one instruction at a time, in program order,
over the pure functions of isa.semantics (never the simulator); gives the expected signature,
the instruction that last wrote each signature byte, the spec cycle rule of every instruction
and the coverage bins the test hits.

Program order is a legal schedule of every program the suite generates: each wait follows its
signal in the stream, and cores meet only at gbarriers, so the machine runs each core up to its
next gbarrier in turn. A program that would need another order (a wait before its signal), that
reads SRAM or DRAM nobody wrote, or that leaves its Target is a GeneratorError."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from isa import semantics, timing
from isa.checks import executing_unit, reset_registers, target_units
from isa.operands import cycle_operands, dram_end, extents, window_out_hw
from isa.spec import load_spec
from isa.target import Target
from npusim.conformance import coverage
from npusim.conformance.case import GeneratorError, TestCase

# The rules as the spec names them, taken when this module is imported: a DUT (or a mutant) that
# swaps a rule with isa.timing.override must not move what the suite expects.
RULES = dict(timing.RULES)
UNDEFINED, INPUT = -1, -2       # provenance of bytes no instruction wrote
_SPEC = load_spec()
_BUF = _SPEC.enums["buf"].names
_UNIT = _SPEC.enums["unit"].names
_REG = _SPEC.enums["reg"].names


@dataclass
class Expected:
    """What a correct implementation leaves behind, and why."""

    signature: bytes
    writers: np.ndarray                   # per signature byte: instruction id or UNDEFINED/INPUT
    instructions: dict[int, tuple]        # id -> (core, index, Instruction)
    cycles: dict[tuple[int, int], int]    # (core, index) -> cycles by its spec rule
    hits: set = field(default_factory=set)


def instr_id(core: int, index: int) -> int:
    return core << 16 | index


class _Dram:
    """The DRAM tensors a test declares, packed into one array: a test touches nothing else
    (so a tensor at the top of a 4 GiB DRAM costs its own size)."""

    def __init__(self, test: TestCase):
        decls = sorted((d.dram, d.dram + d.nbytes) for d in test.program.tensors.values())
        self.starts = np.array([s for s, _ in decls], np.int64)
        self.ends = np.array([e for _, e in decls], np.int64)
        sizes = self.ends - self.starts
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.bytes = np.zeros(int(sizes.sum()), np.uint8)
        self.prov = np.full(self.bytes.size, UNDEFINED, np.int32)
        self.name = test.name

    def index(self, addrs: np.ndarray) -> np.ndarray:
        """Positions in `bytes` of DRAM byte addresses; GeneratorError outside every tensor."""
        addrs = np.asarray(addrs, np.int64)
        i = np.searchsorted(self.starts, addrs, side="right") - 1
        ok = (i >= 0) & (addrs < self.ends[np.maximum(i, 0)])
        if not ok.all():
            bad = int(addrs[~ok][0])
            raise GeneratorError(f"{self.name}: DRAM byte {bad:#x} is in no declared tensor")
        return self.offsets[i] + addrs - self.starts[i]


class _Core:
    def __init__(self, target, dtypes):
        self.buffers = {b: np.zeros(n, dtypes[b]) for b, n in target.derived.buffer_elems.items()}
        self.prov = {b: np.full(n, UNDEFINED, np.int32)
                     for b, n in target.derived.buffer_elems.items()}
        regs = reset_registers()
        self.regs = {u: dict(regs) for u in target_units(target)}
        self.sems = [0] * target.semaphores
        self.halted = False


class Reference:
    """Run `test` on the reference machine: `Reference(test).run()` -> Expected."""

    def __init__(self, test: TestCase):
        self.test = test
        self.t = Target.create(test.target)
        if self.t.dtype != "int8":
            raise GeneratorError(f"the conformance suite covers the int8 datapath; "
                                 f"{test.target} has dtype={self.t.dtype}")
        self.hw = timing.HwParams.from_target(self.t)
        self.dtypes = {b: np.dtype(x) for b, x in _SPEC.elem_types("int8").items()}
        self.eb = dict(self.t.derived.elem_bytes)
        self.dram = _Dram(test)
        for name, array in test.inputs.items():
            decl = test.program.tensors[name]
            data = np.ascontiguousarray(array).astype(np.dtype(decl.dtype).newbyteorder("<"))
            raw = data.reshape(-1).view(np.uint8)
            where = self.dram.index(np.arange(decl.dram, decl.dram + raw.size))
            self.dram.bytes[where] = raw
            self.dram.prov[where] = INPUT
        self.cores = [_Core(self.t, self.dtypes) for _ in range(test.num_cores)]
        self.instructions: dict[int, tuple] = {}
        self.cycles: dict = {}
        self.hits: set = set()

    # ---- driver ------------------------------------------------------------------------------

    def run(self) -> Expected:
        streams = [self.test.program.instructions(c) for c in range(self.test.num_cores)]
        phases = [self._phases(s) for s in streams]
        if len({len(p) for p in phases}) > 1:
            raise GeneratorError(f"{self.test.name}: cores reach different numbers of gbarriers")
        for phase in range(len(phases[0])):
            ids = set()
            for core, parts in enumerate(phases):
                for index, instr in parts[phase]:
                    if self.cores[core].halted:
                        break
                    self._step(core, index, instr)
                    if instr.mnemonic == "gbarrier":
                        ids.add(instr.fields["id"])
            if len(ids) > 1:
                raise GeneratorError(f"{self.test.name}: cores meet at gbarriers with ids {ids}")
        if len(self.cores) > 1 and any(i.mnemonic == "gbarrier" for s in streams for i in s):
            self.hits.add("gbarrier|semantic:result|multi_core")
        sig = self.dram.index(np.arange(self.test.sig_addr,
                                        self.test.sig_addr + self.test.sig_bytes))
        return Expected(self.dram.bytes[sig].tobytes(), self.dram.prov[sig].copy(),
                        self.instructions, self.cycles, self.hits)

    @staticmethod
    def _phases(stream) -> list[list]:
        out = [[]]
        for index, instr in enumerate(stream):
            out[-1].append((index, instr))
            if instr.mnemonic == "gbarrier":
                out.append([])
        return out

    def _step(self, core: int, index: int, instr) -> None:
        ident = instr_id(core, index)
        self.instructions[ident] = (core, index, instr)
        st = self.cores[core]
        unit = executing_unit(instr)
        regs = st.regs.get(unit, {})
        if unit not in st.regs and unit != "dispatch":
            raise GeneratorError(f"{self.test.name}: [{index}] names unit {unit}, not on {self.t}")
        eb = self.eb[_BUF[instr.fields["buf"]]] if instr.spec.cls == "dma" else 1
        rule = timing.rule_name(instr, self.hw.dataflow, self.hw.weight_buffers)
        self.cycles[(core, index)] = RULES[rule](
            self.hw, **cycle_operands(instr, regs or reset_registers(), eb))
        ext = extents(instr, regs or reset_registers()) if instr.spec.cls in (
            "dma", "matrix", "vector") else {}
        end = None
        if instr.spec.cls == "dma":
            end = dram_end(instr.fields, regs["dma_planes"], regs["dma_plane_stride"], eb)
        self.hits |= coverage.field_hits(instr, self.t, ext, end, self.t.derived.dram_bytes)
        handler = getattr(self, "_" + instr.spec.ref)
        handler(st, ident, instr, regs)

    def corner(self, instr, name: str, when=True) -> None:
        if bool(np.any(when)):
            self.hits.add(f"{instr.mnemonic}|semantic:result|{name}")

    # ---- memories ----------------------------------------------------------------------------

    def _read(self, st, buf: str, addr: int, count: int, what: str) -> np.ndarray:
        if addr + count > st.buffers[buf].size:
            raise GeneratorError(f"{self.test.name}: {what} reads {buf}[{addr}..{addr + count}) "
                                 f"past its {st.buffers[buf].size} elements")
        undefined = np.flatnonzero(st.prov[buf][addr:addr + count] == UNDEFINED)
        if undefined.size:
            raise GeneratorError(f"{self.test.name}: {what} reads {buf}[{addr + undefined[0]}], "
                                 "which no instruction wrote (a test must not rely on reset "
                                 "contents)")
        return st.buffers[buf][addr:addr + count].copy()

    def _write(self, st, buf: str, addr: int, values, ident: int) -> None:
        flat = np.asarray(values).reshape(-1)
        st.buffers[buf][addr:addr + flat.size] = flat.astype(self.dtypes[buf])
        st.prov[buf][addr:addr + flat.size] = ident

    def _dram_addresses(self, f, regs, eb):
        planes, pstride = regs["dma_planes"], regs["dma_plane_stride"]
        for name, value, used in (("dram", f["dram"], True), ("stride", f["stride"], f["rows"] > 1),
                                  ("dma_plane_stride", pstride, planes > 1)):
            if used and value % eb:
                raise GeneratorError(f"{self.test.name}: misaligned {name} {value} "
                                     f"({eb}-byte elements)")
        addrs = semantics.dma_byte_addresses(f["dram"], planes, pstride, f["rows"], f["stride"],
                                             f["cols"] * eb)
        return self.dram.index(addrs.reshape(-1)), planes

    # ---- control and sync --------------------------------------------------------------------

    def _nop(self, st, ident, instr, regs):
        pass

    _barrier = _gbarrier = _nop

    def _halt(self, st, ident, instr, regs):
        st.halted = True

    def _cfg(self, st, ident, instr, regs):
        regs[_REG[instr.fields["reg"]]] = instr.fields["value"]

    def _signal(self, st, ident, instr, regs):
        st.sems[instr.fields["sem"]] += 1

    def _wait(self, st, ident, instr, regs):
        sem = instr.fields["sem"]
        if st.sems[sem] <= 0:
            raise GeneratorError(f"{self.test.name}: wait sem={sem} before any signal of it in "
                                 "program order; the reference machine runs program order")
        st.sems[sem] -= 1
        self.corner(instr, "after_signal")

    # ---- DMA ---------------------------------------------------------------------------------

    def _dma_load(self, st, ident, instr, regs):
        f = instr.fields
        buf = _BUF[f["buf"]]
        eb = self.eb[buf]
        addrs, planes = self._dram_addresses(f, regs, eb)
        if np.any(self.dram.prov[addrs] == UNDEFINED):
            raise GeneratorError(f"{self.test.name}: load reads DRAM nobody wrote")
        raw = self.dram.bytes[addrs]
        data = raw.view(self.dtypes[buf].newbyteorder("<")).reshape(planes, f["rows"], f["cols"])
        pads = (f["pad_top"], f["pad_bottom"], f["pad_left"], f["pad_right"])
        tile = semantics.dma_pad(data, *pads)
        if f["sram"] + tile.size > st.buffers[buf].size:
            raise GeneratorError(f"{self.test.name}: load past {buf}")
        dirty = st.prov[buf][f["sram"]:f["sram"] + tile.size] != UNDEFINED
        self._write(st, buf, f["sram"], tile, ident)
        self.corner(instr, "planes", planes > 1)
        self.corner(instr, "stride_gap", f["rows"] > 1 and f["stride"] > f["cols"] * eb)
        self.corner(instr, "stride_zero", f["rows"] > 1 and f["stride"] == 0)
        self.corner(instr, "pad_all", all(pads))
        self.corner(instr, "dirty_pad", any(pads) and dirty.all())

    def _dma_store(self, st, ident, instr, regs):
        f = instr.fields
        buf = _BUF[f["buf"]]
        eb = self.eb[buf]
        addrs, planes = self._dram_addresses(f, regs, eb)
        count = planes * f["rows"] * f["cols"]
        values = self._read(st, buf, f["sram"], count, "store")
        prov = st.prov[buf][f["sram"]:f["sram"] + count]
        raw = values.astype(self.dtypes[buf].newbyteorder("<")).view(np.uint8)
        self.dram.bytes[addrs] = raw
        self.dram.prov[addrs] = np.repeat(prov, eb)
        self.corner(instr, "planes", planes > 1)
        self.corner(instr, "stride_gap", f["rows"] > 1 and f["stride"] > f["cols"] * eb)
        self.corner(instr, "from_abuf", buf == "abuf")

    # ---- matrix ------------------------------------------------------------------------------

    def _gemm(self, st, ident, instr, regs):
        f = instr.fields
        m, k, n = f["m"], f["k"], f["n"]
        a = self._read(st, "ibuf", f["ibuf"], m * k, "gemm ibuf").reshape(m, k)
        w = self._read(st, "wbuf", f["wbuf"], k * n, "gemm wbuf")
        # wt = 1: stored n x k, used transposed
        w = w.reshape(n, k).T if f["wt"] else w.reshape(k, n)
        self.corner(instr, "transposed_ragged", f["wt"] and k != n)
        acc = self._read(st, "abuf", f["abuf"], m * n, "gemm abuf").reshape(m, n) \
            if f["acc"] else None
        exact = a.astype(np.int64) @ w.astype(np.int64) + (0 if acc is None else acc)
        self.corner(instr, "wrap", (exact > semantics.INT32_MAX) | (exact < semantics.INT32_MIN))
        if acc is not None and np.any(st.prov["abuf"][f["abuf"]:f["abuf"] + m * n] >= 0):
            prev = self.instructions.get(int(st.prov["abuf"][f["abuf"]]))
            self.corner(instr, "acc_after_gemm", prev is not None and prev[2].mnemonic == "gemm")
        self._write(st, "abuf", f["abuf"], semantics.gemm(a, w, acc), ident)

    def _window(self, instr, regs) -> dict:
        """The conv_* registers as semantics.conv2d/dwconv2d's stride, pads and dilation,
        their pad/stride/dilation coverage bins marked."""
        pads = tuple(regs[f"conv_pad_{s}"] for s in ("top", "left", "bottom", "right"))
        for side, p in zip(("pad_top", "pad_left", "pad_bottom", "pad_right"), pads):
            self.corner(instr, side, p > 0)
        stride = (regs["conv_stride_h"], regs["conv_stride_w"])
        dilation = (regs["conv_dilation_h"], regs["conv_dilation_w"])
        self.corner(instr, "stride", max(stride) > 1)
        self.corner(instr, "dilation", max(dilation) > 1)
        return dict(stride=stride, pads=pads, dilation=dilation)

    def _conv(self, st, ident, instr, regs):
        f = instr.fields
        kh, kw, cin, cout = regs["conv_kh"], regs["conv_kw"], f["cin"], f["cout"]
        oh, ow = window_out_hw("conv", f, regs)
        x = self._read(st, "ibuf", f["ibuf"], f["in_h"] * f["in_w"] * cin, "conv ibuf")
        w = self._read(st, "wbuf", f["wbuf"], kh * kw * cin * cout, "conv wbuf")
        acc = self._read(st, "abuf", f["abuf"], oh * ow * cout, "conv abuf").reshape(
            oh, ow, cout) if f["acc"] else None
        kw_args = self._window(instr, regs)
        x = x.reshape(f["in_h"], f["in_w"], cin)
        w = w.reshape(kh, kw, cin, cout)
        self.corner(instr, "multi_block", cin > self.t.array_rows)
        self.corner(instr, "wrap", self._conv_wraps(x, w, kw_args, acc))
        self._write(st, "abuf", f["abuf"], semantics.conv2d(x, w, acc=acc, **kw_args), ident)

    def _dwconv(self, st, ident, instr, regs):
        f = instr.fields
        kh, kw, c = regs["conv_kh"], regs["conv_kw"], f["channels"]
        oh, ow = window_out_hw("conv", f, regs)
        x = self._read(st, "ibuf", f["ibuf"], f["in_h"] * f["in_w"] * c, "dwconv ibuf")
        w = self._read(st, "wbuf", f["wbuf"], kh * kw * c, "dwconv wbuf")
        acc = self._read(st, "abuf", f["abuf"], oh * ow * c, "dwconv abuf").reshape(
            oh, ow, c) if f["acc"] else None
        kw_args = self._window(instr, regs)
        x = x.reshape(f["in_h"], f["in_w"], c)
        w = w.reshape(kh, kw, c)
        self.corner(instr, "multi_pass", kh * kw > self.t.array_rows)
        big = semantics.dwconv2d(x.astype(np.float64), w.astype(np.float64), **kw_args)
        total = big + (0 if acc is None else acc)
        self.corner(instr, "wrap", (total > semantics.INT32_MAX) | (total < semantics.INT32_MIN))
        self._write(st, "abuf", f["abuf"], semantics.dwconv2d(x, w, acc=acc, **kw_args), ident)

    @staticmethod
    def _conv_wraps(x, w, kw_args, acc) -> bool:
        big = semantics.conv2d(x.astype(np.float64), w.astype(np.float64), **kw_args)
        total = big + (0 if acc is None else acc)
        return bool(np.any((total > semantics.INT32_MAX) | (total < semantics.INT32_MIN)))

    # ---- vector ------------------------------------------------------------------------------

    def _operands(self, st, instr, regs):
        f = instr.fields
        names, data = {}, {}
        for name, ext in extents(instr, regs).items():
            names[name] = _BUF[f[name + "_buf"]]
            if name != "dst":
                data[name] = self._read(st, names[name], f[name], ext.count,
                                        f"{instr.mnemonic} {name}")
        return names, data

    def _sat_corners(self, instr, exact, dtype) -> None:
        info = np.iinfo(dtype)
        self.corner(instr, "sat_hi", exact > info.max)
        self.corner(instr, "sat_lo", exact < info.min)

    def _binary_op(self, st, ident, instr, regs):
        f, m = instr.fields, instr.mnemonic
        names, d = self._operands(st, instr, regs)
        dt = self.dtypes[names["dst"]]
        a, b = d["src0"], d["src1"]
        exact = semantics.ELEMENTWISE[m](a.astype(np.int64), b.astype(np.int64))
        if m in ("vadd", "vsub", "vmul"):
            self._sat_corners(instr, exact, dt)
        else:
            self.corner(instr, "equal", a == b)
        self.corner(instr, "wide_dst", names["dst"] == "abuf")
        self._write(st, names["dst"], f["dst"], semantics.elementwise(m, a, b, dt), ident)

    _vadd = _vsub = _vmul = _vmax = _vmin = _binary_op

    def _vrelu(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        dt, a = self.dtypes[names["dst"]], d["src0"]
        self.corner(instr, "negative", a < 0)
        self.corner(instr, "narrow_sat", a > np.iinfo(dt).max)
        self._write(st, names["dst"], f["dst"], semantics.relu(a, dt), ident)

    def _vclip(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        dt, a = self.dtypes[names["dst"]], d["src0"]
        self.corner(instr, "clip_lo", a < f["lo"])
        self.corner(instr, "clip_hi", a > f["hi"])
        self.corner(instr, "lo_above_hi", f["lo"] > f["hi"])
        self._write(st, names["dst"], f["dst"], semantics.clip(a, f["lo"], f["hi"], dt), ident)

    def _ties(self, instr, x, shift) -> None:
        x = np.asarray(x, np.int64)
        shift = np.broadcast_to(np.asarray(shift, np.int64), x.shape)
        half = np.where(shift > 0, np.left_shift(1, np.maximum(shift - 1, 0)), -1)
        tie = (shift > 0) & ((x & ((half << 1) - 1)) == half)
        self.corner(instr, "tie", tie & (x >= 0))
        self.corner(instr, "tie_negative", tie & (x < 0))

    def _vshr(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        dt, a = self.dtypes[names["dst"]], d["src0"]
        self._ties(instr, a, f["shift"])
        self._sat_corners(instr, semantics.round_shift(a, f["shift"]), dt)
        self._write(st, names["dst"], f["dst"], semantics.shift_right(a, f["shift"], dt), ident)

    def _vcopy(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        dt, a = self.dtypes[names["dst"]], d["src0"]
        info = np.iinfo(dt)
        self.corner(instr, "narrow_sat", (a > info.max) | (a < info.min))
        self.corner(instr, "widen", self.dtypes[names["src0"]].itemsize < dt.itemsize)
        self._write(st, names["dst"], f["dst"], semantics.saturate(a, dt), ident)

    def _vbias(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        dt, a, b = self.dtypes[names["dst"]], d["src0"], d["src1"]
        idx = np.arange(a.size) % f["channels"]
        self._sat_corners(instr, a.astype(np.int64) + b.astype(np.int64)[idx], dt)
        self.corner(instr, "channels_wrap", f["channels"] < f["len"])
        self._write(st, names["dst"], f["dst"], semantics.bias_add(a, b, f["channels"], dt),
                    ident)

    def _vrequant(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        if names["src1"] != "abuf":
            raise GeneratorError(f"{self.test.name}: vrequant src1 must be abuf")
        a, params, c = d["src0"], d["src1"], f["channels"]
        width = 3 if f.get("bias") else 2  # bias=1: (bias, mult, shift) triples
        mult, shift = params[width - 2::width], params[width - 1::width]
        if np.any((shift < 0) | (shift > 63)):
            raise GeneratorError(f"{self.test.name}: vrequant shift outside 0..63")
        ch = np.arange(a.size) % c
        if width == 3:  # the bias add saturates to int32 first, as vbias into abuf
            wide = a.astype(np.int64) + params[0::3].astype(np.int64)[ch]
            self.corner(instr, "bias_sat_hi", wide > np.iinfo(np.int32).max)
            self.corner(instr, "bias_sat_lo", wide < np.iinfo(np.int32).min)
            a = semantics.saturate(wide, np.int32)
        prod = a.astype(np.int64) * mult.astype(np.int64)[ch]
        self._ties(instr, prod, shift.astype(np.int64)[ch])
        y = semantics.round_shift(prod, shift.astype(np.int64)[ch]) + f["zp"]
        self.corner(instr, "relu_clamp", bool(f["relu"]) & (y < f["zp"]))
        if f["relu"]:
            y = np.maximum(y, f["zp"])
        self._sat_corners(instr, y, np.int8)
        self.corner(instr, "mult_negative", mult < 0)
        out = semantics.requantize(a, mult, shift, f["zp"], bool(f["relu"]), c)
        self._write(st, names["dst"], f["dst"],
                    semantics.saturate(out, self.dtypes[names["dst"]]), ident)

    def _vlut(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        if "abuf" in (names["src0"], names["src1"]):
            raise GeneratorError(f"{self.test.name}: vlut operands must be int8 buffers")
        a = d["src0"]
        self.corner(instr, "index_min", a == -128)
        self.corner(instr, "index_max", a == 127)
        out = semantics.saturate(semantics.lut(a, d["src1"]), self.dtypes[names["dst"]])
        self._write(st, names["dst"], f["dst"], out, ident)

    # ---- transformer: row-wise and non-linear -----------------------------------------------

    def _row_operands(self, st, instr, regs):
        names, d = self._operands(st, instr, regs)
        f = instr.fields
        tile = d["src0"].astype(np.int64).reshape(f["rows"], f["cols"])
        return names, d, tile

    def _vrmax(self, st, ident, instr, regs):
        f = instr.fields
        names, d, tile = self._row_operands(st, instr, regs)
        dt = self.dtypes[names["dst"]]
        exact = tile.max(axis=1)
        self.corner(instr, "negative", exact < 0)
        self.corner(instr, "narrow_sat", (exact > np.iinfo(dt).max) | (exact < np.iinfo(dt).min))
        self.corner(instr, "wide_dst", names["dst"] == "abuf")
        self._write(st, names["dst"], f["dst"],
                    semantics.row_max(d["src0"], f["rows"], f["cols"], dt), ident)

    def _vrsum(self, st, ident, instr, regs):
        f = instr.fields
        names, d, tile = self._row_operands(st, instr, regs)
        dt = self.dtypes[names["dst"]]
        self._sat_corners(instr, tile.sum(axis=1), dt)
        self.corner(instr, "wide_dst", names["dst"] == "abuf")
        self._write(st, names["dst"], f["dst"],
                    semantics.row_sum(d["src0"], f["rows"], f["cols"], dt), ident)

    def _vrsub(self, st, ident, instr, regs):
        f = instr.fields
        names, d, tile = self._row_operands(st, instr, regs)
        dt = self.dtypes[names["dst"]]
        self._sat_corners(instr, tile - d["src1"].astype(np.int64)[:, None], dt)
        self._write(st, names["dst"], f["dst"],
                    semantics.row_sub(d["src0"], d["src1"], f["rows"], f["cols"], dt), ident)

    def _vrmul(self, st, ident, instr, regs):
        f = instr.fields
        names, d, tile = self._row_operands(st, instr, regs)
        dt = self.dtypes[names["dst"]]
        prod = tile * d["src1"].astype(np.int64)[:, None]
        self._ties(instr, prod, f["shift"])
        self._sat_corners(instr, semantics.round_shift(prod, f["shift"]), dt)
        self._write(st, names["dst"], f["dst"], semantics.row_mul(
            d["src0"], d["src1"], f["shift"], f["rows"], f["cols"], dt), ident)

    def _vexp(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        dt, a = self.dtypes[names["dst"]], d["src0"].astype(np.int64)
        y = semantics.exp_fixed(a, f["in_frac"], f["out_frac"])
        self.corner(instr, "positive_clamp", a > 0)
        self.corner(instr, "underflow", (a < 0) & (y == 0))
        self.corner(instr, "exact_one", y == 1 << f["out_frac"])
        self.corner(instr, "narrow_sat", y > np.iinfo(dt).max)
        self._write(st, names["dst"], f["dst"], semantics.saturate(y, dt), ident)

    def _vrecip(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        dt, a = self.dtypes[names["dst"]], d["src0"].astype(np.int64)
        y = semantics.recip_fixed(a, f["in_frac"], f["out_frac"])
        self.corner(instr, "zero", a == 0)
        self.corner(instr, "negative", a < 0)
        self.corner(instr, "power_of_two", (a > 0) & ((a & (a - 1)) == 0))
        self._sat_corners(instr, y, dt)
        self._write(st, names["dst"], f["dst"], semantics.saturate(y, dt), ident)

    def _vrsqrt(self, st, ident, instr, regs):
        f = instr.fields
        names, d = self._operands(st, instr, regs)
        dt, a = self.dtypes[names["dst"]], d["src0"].astype(np.int64)
        y = semantics.rsqrt_fixed(a, f["in_frac"], f["out_frac"])
        self.corner(instr, "non_positive", a <= 0)
        self.corner(instr, "odd_in_frac", f["in_frac"] % 2 == 1)
        self.corner(instr, "sat_hi", y > np.iinfo(dt).max)
        self._write(st, names["dst"], f["dst"], semantics.saturate(y, dt), ident)

    def _pool(self, st, ident, instr, regs):
        f, m = instr.fields, instr.mnemonic
        names, d = self._operands(st, instr, regs)
        dt = self.dtypes[names["dst"]]
        c = f["channels"]
        x = d["src0"].reshape(f["in_h"], f["in_w"], c)
        kernel = (regs["pool_kh"], regs["pool_kw"])
        stride = (regs["pool_stride_h"], regs["pool_stride_w"])
        pads = tuple(regs[f"pool_pad_{s}"] for s in ("top", "left", "bottom", "right"))
        kind = "max" if m == "vmaxpool" else "sum"
        self.corner(instr, "pad_window", any(pads))
        self.corner(instr, "overlap", min(stride[0] - kernel[0], stride[1] - kernel[1]) < 0)
        self.corner(instr, "gap", max(stride[0] - kernel[0], stride[1] - kernel[1]) > 0)
        if kind == "max":
            self.corner(instr, "padding_never_wins", any(pads) and bool(np.all(x < 0)))
        else:
            self._sat_corners(instr, semantics.pool("sum", x, kernel, stride, pads,
                                                    dtype=np.int64), dt)
        out = semantics.pool(kind, x, kernel=kernel, stride=stride, pads=pads, dtype=dt)
        self._write(st, names["dst"], f["dst"], out, ident)

    _vmaxpool = _vsumpool = _pool


def expected(test: TestCase) -> Expected:
    """The reference machine's result for `test`."""
    return Reference(test).run()
