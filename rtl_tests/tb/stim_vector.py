"""Vector-unit stimulus: every VECTOR mnemonic, directed corner cases and seeded random ones."""

from __future__ import annotations

import numpy as np

from isa.codec import encode_fields
from isa.semantics import conv_out_size
from isa.spec import load_spec
from rtl_tests.tb.stimulus import INT8, INT32, TYPE_RANGE, Case, guarded, ints, place

BUFS = load_spec().buffer_names  # ibuf, wbuf, abuf, obuf
INT8_BUFS = tuple(b for b, t in load_spec().elem_types("int8").items() if t == "int8")
BINARY = ("vadd", "vsub", "vmul", "vmax", "vmin")
UNARY = ("vrelu", "vclip", "vshr", "vcopy")
REDUCTIONS = ("vrmax", "vrsum")
ROWS = REDUCTIONS + ("vrsub", "vrmul")
NONLINEAR = ("vexp", "vrecip", "vrsqrt")
M32 = [2**31 - 1, -(2**31), 2**31 - 2, -(2**31) + 1, 1, -1, 0, 2]
# each function's edge inputs: exp of 0, positives (clamped), very negative (underflow);
# 1/x and 1/sqrt(x) of 0, 1, the extremes, negatives and powers of two
NL_EDGES = {"vexp": [0, 1, 2**31 - 1, -1, -(2**31), -(40 << 16), -(1 << 16), -(1 << 20)],
            "vrecip": [1, 2, 3, 2**31 - 1, -(2**31), 0, -1, 1 << 30],
            "vrsqrt": [1, 2, 3, 2**31 - 1, -(2**31), 0, -7, 1 << 30]}
POOL_REGS = ("pool_kh", "pool_kw", "pool_stride_h", "pool_stride_w",
             "pool_pad_top", "pool_pad_left", "pool_pad_bottom", "pool_pad_right")


def mixed(rng, buf: str, n: int) -> np.ndarray:
    """Per element: the type's full range, small values, or an extreme (saturation both ways)."""
    lo, hi = TYPE_RANGE[buf]
    pick = rng.integers(0, 3, size=n)
    full = ints(rng, n, (lo, hi))
    small = rng.integers(max(lo, -300), min(hi, 300), size=n, endpoint=True)
    extreme = rng.choice([lo, lo + 1, hi - 1, hi], size=n)
    return np.choose(pick, [full, small, extreme]).astype(np.int64)


class VectorStim:
    """Builds vector Cases inside buffers of `sizes` elements, operands never partly overlapping."""

    def __init__(self, rng: np.random.Generator, sizes: dict):
        self.rng = rng
        self.sizes = sizes

    def _place(self, taken: dict, buf: str, count: int) -> int:
        addr = place(self.rng, self.sizes[buf], count, taken.setdefault(buf, []))
        taken[buf].append((addr, count))
        return addr

    def op(self, mnemonic: str, n: int, dst_buf: str, src0_buf: str, src1_buf: str | None = None,
           a=None, b=None, src1_count: int | None = None, in_place: bool = False,
           **fields) -> Case:
        """An elementwise-format instruction on n elements; a/b default to mixed values."""
        taken: dict = {}
        src0 = self._place(taken, src0_buf, n)
        dst = src0 if in_place else self._place(taken, dst_buf, n)
        a = mixed(self.rng, src0_buf, n) if a is None else np.asarray(a)
        pokes = [(src0_buf, src0, a)]
        if src1_buf is not None:
            count = n if src1_count is None else src1_count
            src1 = self._place(taken, src1_buf, count)
            b = mixed(self.rng, src1_buf, count) if b is None else np.asarray(b)
            pokes.append((src1_buf, src1, b))
            fields.update(src1_buf=src1_buf, src1=src1)
        word = encode_fields(mnemonic, dst_buf=dst_buf, dst=dst, src0_buf=src0_buf, src0=src0,
                             len=n, **fields)
        return Case(word, pokes, [guarded(dst_buf, dst, n, self.sizes[dst_buf])],
                    f"{mnemonic} len={n} {src0_buf}->{dst_buf}")

    def requant(self, n: int, channels: int, dst_buf: str, src0_buf: str, zp: int, relu: int,
                shifts=None, mults=None, a=None, biases=None) -> Case:
        """vrequant; with `biases` (True: mixed int32 values) its bias=1 form, the table
        (bias, mult, shift) triples."""
        shifts = (self.rng.integers(0, 64, size=channels) if shifts is None
                  else np.resize(np.asarray(shifts), channels))
        mults = (mixed(self.rng, "abuf", channels) if mults is None
                 else np.resize(np.asarray(mults), channels))
        if biases is None:
            table = np.empty(2 * channels, dtype=np.int64)
            table[0::2], table[1::2] = mults, shifts
            return self.op("vrequant", n, dst_buf, src0_buf, "abuf", a=a, b=table,
                           src1_count=2 * channels, channels=channels, zp=zp, relu=relu)
        biases = (mixed(self.rng, "abuf", channels) if biases is True
                  else np.resize(np.asarray(biases), channels))
        table = np.stack([biases, mults, shifts], axis=1).reshape(-1).astype(np.int64)
        return self.op("vrequant", n, dst_buf, src0_buf, "abuf", a=a, b=table,
                       src1_count=3 * channels, channels=channels, zp=zp, relu=relu, bias=1)

    def pool(self, mnemonic: str, in_h: int, in_w: int, c: int, kernel, stride, pads,
             dst_buf: str, src0_buf: str, x=None) -> list[Case]:
        """cfg of the eight pool_* registers (each a 1-cycle instruction), then the pool."""
        values = (*kernel, *stride, *pads)  # pads: top, left, bottom, right
        cases = [Case(encode_fields("cfg", unit="vector", reg=reg, value=int(v)), name=f"cfg {reg}")
                 for reg, v in zip(POOL_REGS, values)]
        kh, kw = kernel
        oh = conv_out_size(in_h, kh, stride[0], pads[0], pads[2], 1)
        ow = conv_out_size(in_w, kw, stride[1], pads[1], pads[3], 1)
        taken: dict = {}
        src0 = self._place(taken, src0_buf, in_h * in_w * c)
        dst = self._place(taken, dst_buf, oh * ow * c)
        x = mixed(self.rng, src0_buf, in_h * in_w * c) if x is None else np.asarray(x)
        word = encode_fields(mnemonic, dst_buf=dst_buf, dst=dst, src0_buf=src0_buf, src0=src0,
                             in_h=in_h, in_w=in_w, channels=c)
        cases.append(Case(word, [(src0_buf, src0, x)],
                          [guarded(dst_buf, dst, oh * ow * c, self.sizes[dst_buf])],
                          f"{mnemonic} {in_h}x{in_w}x{c} k={kernel} s={stride} p={pads}"))
        return cases

    def row(self, mnemonic: str, rows: int, cols: int, dst_buf: str, src0_buf: str,
            src1_buf: str | None = None, a=None, b=None, **fields) -> Case:
        """A row-wise instruction on a rows x cols tile; src1 holds rows per-row values."""
        taken: dict = {}
        n = rows * cols
        out = rows if mnemonic in REDUCTIONS else n
        src0 = self._place(taken, src0_buf, n)
        dst = self._place(taken, dst_buf, out)
        a = mixed(self.rng, src0_buf, n) if a is None else np.asarray(a)
        pokes = [(src0_buf, src0, a)]
        if src1_buf is not None:
            src1 = self._place(taken, src1_buf, rows)
            b = mixed(self.rng, src1_buf, rows) if b is None else np.asarray(b)
            pokes.append((src1_buf, src1, b))
            fields.update(src1_buf=src1_buf, src1=src1)
        word = encode_fields(mnemonic, dst_buf=dst_buf, dst=dst, src0_buf=src0_buf, src0=src0,
                             rows=rows, cols=cols, **fields)
        return Case(word, pokes, [guarded(dst_buf, dst, out, self.sizes[dst_buf])],
                    f"{mnemonic} {rows}x{cols} {src0_buf}->{dst_buf}")

    def lut(self, n: int, dst_buf: str, src0_buf: str, table_buf: str, a=None) -> Case:
        return self.op("vlut", n, dst_buf, src0_buf, table_buf, a=a,
                       b=ints(self.rng, 256, INT8), src1_count=256)


def ties(shift: int) -> np.ndarray:
    """Values exactly halfway between two results of a right shift, both signs, and neighbours."""
    half = 1 << (shift - 1)
    base = np.array([0, 1, 2, 5, 1000], dtype=np.int64) << shift
    return np.concatenate([base + half, -(base + half), base + half - 1, base + half + 1,
                           -(base + half) + 1, -(base + half) - 1])


def vector_directed(rng, sizes: dict, lanes: int) -> list[Case]:
    s = VectorStim(rng, sizes)
    L = lanes
    hi8, lo8 = [127, -128, 100, -100, 127, -128, 0, 1], [1, -1, 100, -100, 127, -128, -1, 0]
    m32 = [2**31 - 1, -(2**31), 2**31 - 1, -(2**31), 65536, -65536, 46341, -46341]
    cases = [
        s.op("vadd", 8, "obuf", "ibuf", "wbuf", a=hi8, b=lo8),               # int8 sat both ways
        s.op("vadd", 8, "abuf", "abuf", "abuf", a=m32, b=m32),               # int32 sat both ways
        s.op("vsub", 8, "obuf", "abuf", "ibuf", a=m32, b=hi8),               # int32 -> int8
        s.op("vmul", 8, "abuf", "abuf", "abuf", a=m32, b=m32[::-1]),         # 64-bit products
        s.op("vmul", 8, "obuf", "ibuf", "ibuf", a=hi8, b=lo8),
        s.op("vmax", 1, "abuf", "ibuf", "abuf"),                             # len 1
        s.op("vmin", L + 1, "wbuf", "abuf", "obuf"),                         # len = L + 1
        s.op("vrelu", 4 * L - 1, "obuf", "abuf"),
        s.op("vrelu", 2 * L, "ibuf", "ibuf", in_place=True),                 # exactly in place
        s.op("vclip", 9, "obuf", "abuf", lo=-20, hi=50),
        s.op("vclip", 5, "abuf", "ibuf", lo=10, hi=-10),                     # lo > hi: hi wins
        s.op("vclip", 7, "ibuf", "abuf", lo=-32768, hi=32767),
        s.op("vcopy", 9, "ibuf", "abuf"),                                    # int32 -> int8 sat
        s.op("vcopy", 6, "abuf", "obuf"),                                    # int8 -> int32
        s.op("vbias", 11, "abuf", "abuf", "abuf", src1_count=3, channels=3),  # channels < L
        s.op("vbias", 10, "obuf", "ibuf", "wbuf", src1_count=1, channels=1),
        s.op("vbias", 3 * L + 1, "obuf", "abuf", "abuf", src1_count=L + 3, channels=L + 3),
        s.lut(2 * L + 1, "obuf", "ibuf", "wbuf", a=np.arange(-128, -128 + 2 * L + 1)),
        s.lut(6, "abuf", "obuf", "ibuf", a=[127, -128, 0, -1, 1, 64]),
    ]
    for shift in (1, 3, 31):
        vals = ties(shift) if shift < 31 else np.array(m32, dtype=np.int64)
        cases.append(s.op("vshr", len(vals), "abuf", "abuf", a=np.clip(vals, *INT32), shift=shift))
    cases.append(s.op("vshr", 8, "obuf", "abuf", a=m32, shift=0))
    # requantize: rounding ties, negative multipliers, zero points, fused relu, every shift width
    acc = np.clip(ties(4), *INT32)
    cases += [s.requant(len(acc), 1, "obuf", "abuf", zp=0, relu=0, shifts=[4], mults=[1], a=acc),
              s.requant(len(acc), 1, "obuf", "abuf", zp=-5, relu=0, shifts=[4], mults=[-1], a=acc),
              s.requant(10, 3, "obuf", "abuf", zp=3, relu=1),
              s.requant(8, 4, "ibuf", "abuf", zp=-128, relu=1, shifts=[0, 1, 62, 63], a=m32),
              s.requant(9, 2, "abuf", "ibuf", zp=127, relu=0, shifts=[0, 31],
                        mults=[2**31 - 1, -(2**31)]),
              s.requant(2 * L + 3, L + 1, "obuf", "abuf", zp=10, relu=0)]
    neg = -np.arange(1, 5 * 5 * 3 + 1)  # all negative: zero padding must never win a max
    cases += s.pool("vmaxpool", 4, 4, 2, (2, 2), (2, 2), (0, 0, 0, 0), "obuf", "ibuf")
    cases += s.pool("vmaxpool", 5, 5, 3, (3, 3), (1, 1), (1, 1, 1, 1), "obuf", "abuf", x=neg)
    cases += s.pool("vsumpool", 5, 5, 3, (3, 3), (1, 1), (1, 1, 1, 1), "abuf", "abuf", x=neg)
    cases += s.pool("vsumpool", 4, 6, L + 1, (2, 3), (2, 1), (1, 0, 1, 2), "obuf", "abuf")
    cases += s.pool("vmaxpool", 3, 3, 1, (1, 1), (1, 1), (2, 1, 0, 0), "ibuf", "wbuf")  # all-pad rows
    cases += s.pool("vsumpool", 3, 4, 2, (1, 1), (2, 3), (2, 1, 1, 0), "obuf", "ibuf")
    return cases


def transformer_directed(rng, sizes: dict, lanes: int) -> list[Case]:
    """Row-wise and non-linear instructions at their corners: rows that end mid-chunk, cols of
    1, L and L + 1, saturation both ways, rounding ties, exp/1/x/1/sqrt of their edge values."""
    s = VectorStim(rng, sizes)
    L = lanes
    neg = -np.arange(1, 3 * (L + 1) + 1)
    cases = [
        s.row("vrmax", 3, L + 1, "abuf", "ibuf"),
        s.row("vrmax", 3, L + 1, "obuf", "ibuf", a=neg),                   # negative maxima
        s.row("vrmax", 2, 4, "obuf", "abuf", a=M32),                       # int32 -> int8 sat
        s.row("vrmax", 2 * L + 1, 1, "abuf", "abuf"),                      # cols = 1
        s.row("vrsum", 3, L, "obuf", "ibuf", a=np.resize([127, -128], 3 * L)),
        s.row("vrsum", 2, 4, "abuf", "abuf", a=[2**31 - 1] * 4 + [-(2**31)] * 4),  # int32 sat
        s.row("vrsum", 2, 2 * L + 3, "abuf", "wbuf"),
        s.row("vrsub", 3, L + 1, "obuf", "ibuf", "wbuf"),
        s.row("vrsub", 2, 4, "abuf", "abuf", "abuf", a=M32, b=[5, -5]),
        s.row("vrmul", 2, 8, "abuf", "abuf", "abuf",
              a=np.clip(ties(1)[:16], -(2**31), 2**31 - 1), b=[1, -1], shift=1),  # ties
        s.row("vrmul", 2, 4, "abuf", "abuf", "abuf", a=M32, b=[2**31 - 1, -(2**31)], shift=31),
        s.row("vrmul", 3, L + 2, "obuf", "ibuf", "abuf", shift=0),
        s.row("vrmul", 1, 2 * L - 1, "ibuf", "wbuf", "obuf", shift=5),
    ]
    formats = {"vexp": [(16, 15), (0, 30), (31, 30), (0, 0), (20, 7)],
               "vrecip": [(0, 30), (0, 0), (31, 31), (15, 23), (4, 2)],
               "vrsqrt": [(0, 30), (1, 15), (31, 31), (0, 0), (4, 20)]}
    for op in NONLINEAR:
        for fi, fo in formats[op]:
            cases.append(s.op(op, len(NL_EDGES[op]), "abuf", "abuf", a=NL_EDGES[op],
                              in_frac=fi, out_frac=fo))
        cases.append(s.op(op, 2 * L + 1, "obuf", "abuf", in_frac=8, out_frac=4))  # int8 dst
        cases.append(s.op(op, L + 1, "abuf", "ibuf", in_frac=3, out_frac=20))     # int8 src
    return cases


def transformer_random(rng, sizes: dict, lanes: int, count: int) -> list[Case]:
    s = VectorStim(rng, sizes)
    cases: list[Case] = []
    for _ in range(count):
        mn = str(rng.choice(ROWS + NONLINEAR))
        dst, s0, s1 = (str(b) for b in rng.choice(BUFS, size=3))
        if mn in ROWS:
            rows, cols = int(rng.integers(1, 5)), int(rng.integers(1, 3 * lanes + 2))
            extra = {"shift": int(rng.integers(0, 32))} if mn == "vrmul" else {}
            cases.append(s.row(mn, rows, cols, dst, s0, None if mn in REDUCTIONS else s1,
                               **extra))
        else:
            n = int(rng.integers(1, 4 * lanes + 1))
            a = np.where(rng.random(n) < 0.5, -np.abs(mixed(rng, s0, n)), mixed(rng, s0, n))
            cases.append(s.op(mn, n, dst, s0, a=a, in_frac=int(rng.integers(0, 32)),
                              out_frac=int(rng.integers(0, 31 if mn == "vexp" else 32))))
    return cases


def requant_bias_directed(rng, sizes: dict, lanes: int) -> list[Case]:
    """vrequant bias=1: the bias add saturating at both int32 edges before the multiply,
    channels < L and > L, len % L != 0, every destination type, ties after the add."""
    s = VectorStim(rng, sizes)
    L = lanes
    m32 = [2**31 - 1, -(2**31), 2**31 - 1, -(2**31), 65536, -65536, 46341, -46341]
    edge = [2**31 - 1, -(2**31), 1, -1, 2**31 - 1, -(2**31), -5, 5]
    acc = np.clip(ties(4), *INT32)
    return [s.requant(8, 8, "obuf", "abuf", zp=0, relu=0, shifts=[24], mults=[1], a=m32,
                      biases=edge),
            s.requant(len(acc), 1, "obuf", "abuf", zp=-5, relu=0, shifts=[4], mults=[1],
                      a=acc, biases=[16]),
            s.requant(10, 3, "obuf", "abuf", zp=3, relu=1, biases=True),
            s.requant(9, 2, "abuf", "ibuf", zp=127, relu=0, shifts=[0, 31],
                      mults=[2**31 - 1, -(2**31)], biases=[2**31 - 1, -(2**31)]),
            s.requant(2 * L + 3, L + 1, "ibuf", "abuf", zp=10, relu=1, biases=True),
            s.requant(1, 1, "wbuf", "abuf", zp=-128, relu=0, biases=True)]


def requant_bias_random(rng, sizes: dict, lanes: int, count: int) -> list[Case]:
    s = VectorStim(rng, sizes)
    cases = []
    for _ in range(count):
        dst, s0 = (str(b) for b in rng.choice(BUFS, size=2))
        cases.append(s.requant(int(rng.integers(1, 6 * lanes + 1)),
                               int(rng.integers(1, 2 * lanes + 2)), dst, s0,
                               zp=int(rng.integers(-128, 128)), relu=int(rng.integers(0, 2)),
                               biases=True))
    return cases


def vector_random(rng, sizes: dict, lanes: int, count: int) -> list[Case]:
    s = VectorStim(rng, sizes)
    ops = BINARY + UNARY + ("vbias", "vrequant", "vlut", "vmaxpool", "vsumpool")
    cases: list[Case] = []
    for _ in range(count):
        mn = str(rng.choice(ops))
        n = int(rng.integers(1, 6 * lanes + 1))
        dst, s0, s1 = (str(b) for b in rng.choice(BUFS, size=3))
        if mn in BINARY:
            cases.append(s.op(mn, n, dst, s0, s1))
        elif mn == "vclip":
            lo, hi = sorted(int(v) for v in rng.integers(-40000, 40000, size=2))
            cases.append(s.op(mn, n, dst, s0, lo=max(lo, -32768), hi=min(hi, 32767)))
        elif mn == "vshr":
            cases.append(s.op(mn, n, dst, s0, shift=int(rng.integers(0, 32))))
        elif mn in UNARY:
            cases.append(s.op(mn, n, dst, s0))
        elif mn == "vbias":
            c = int(rng.integers(1, 2 * lanes + 2))
            cases.append(s.op(mn, n, dst, s0, s1, src1_count=c, channels=c))
        elif mn == "vrequant":
            cases.append(s.requant(n, int(rng.integers(1, 2 * lanes + 2)), dst, s0,
                                   zp=int(rng.integers(-128, 128)), relu=int(rng.integers(0, 2))))
        elif mn == "vlut":
            cases.append(s.lut(n, dst, str(rng.choice(INT8_BUFS)), str(rng.choice(INT8_BUFS))))
        else:
            kh, kw, sh, sw = (int(v) for v in rng.integers(1, 4, size=4))
            pads = tuple(int(rng.integers(0, k)) for k in (kh, kw, kh, kw))
            in_h, in_w = int(rng.integers(kh, 7)), int(rng.integers(kw, 7))
            cases += s.pool(mn, in_h, in_w, int(rng.integers(1, 2 * lanes + 2)), (kh, kw),
                            (sh, sw), pads, dst, s0)
    return cases
