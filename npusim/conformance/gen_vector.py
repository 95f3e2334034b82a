"""Conformance tests of the vector unit, generated from the spec's vector instructions: every
buffer combination, lane tails, addresses at the buffer ends, lengths at their limits,
saturation, rounding ties, per-channel tables, pooling windows, and seeded random cases."""

from __future__ import annotations

import numpy as np

from isa.spec import load_spec
from npusim.conformance.case import Builder

I8, I32 = (-128, 127), (-(2**31), 2**31 - 1)
BINARY = ("vadd", "vsub", "vmul", "vmax", "vmin")
# (src0, src1, dst) buffers: each buffer in each role at least once
ROTATIONS = [("ibuf", "wbuf", "obuf"), ("wbuf", "obuf", "ibuf"), ("obuf", "ibuf", "wbuf"),
             ("abuf", "abuf", "abuf"), ("abuf", "ibuf", "obuf")]


def i8(rng, n, lo=-128, hi=127):
    return rng.integers(lo, hi + 1, size=n, dtype=np.int64)


def i32(rng, n, lo=-(2**31), hi=2**31 - 1):
    return rng.integers(lo, hi, size=n, dtype=np.int64, endpoint=True)


def data_for(buf, rng, n, wide=(-(2**20), 2**20)):
    return i32(rng, n, *wide) if buf == "abuf" else i8(rng, n)


def vector_case(name, target, op, srcs, dst_buf, fields=None, n=None, out=None, labels=(),
                doc="", top=(), dst_top=False):
    """srcs: [(buf, array)] for src0 (and src1); the result (`out` elements, default len)
    goes to the signature."""
    b = Builder(name, target, doc, labels)
    fields = dict(fields or {})
    addrs = {}
    for role, (buf, array) in zip(("src0", "src1"), srcs):
        addrs[role] = (buf, b.put(f"{role.upper()}", array, buf, top=role in top))
    n = n if n is not None else len(srcs[0][1])
    count = n if out is None else out
    dst = b.alloc(dst_buf, count, top=dst_top)
    b.handoff("dma0", "vector")
    if "len" not in fields and load_spec().instruction(op).format != "pool":
        fields["len"] = n
    b.emit(op, dst=(dst_buf, dst), **addrs, **fields)
    b.output(dst_buf, dst, count, src="vector")
    return b


def _binary(t, rng):
    L = t.vector_lanes
    for op in BINARY:
        for k, (s0, s1, d) in enumerate(ROTATIONS):
            n = int(rng.integers(1, 4 * L))
            yield vector_case(f"{op}/buffers-{s0}-{s1}-{d}", t, op,
                              [(s0, data_for(s0, rng, n)), (s1, data_for(s1, rng, n))], d,
                              doc=f"{op} from {s0} and {s1} into {d}")
        for n, what in ((1, "len-1"), (L, "len-lanes"), (L + 1, "lane-tail"),
                        (2 * L - 1, "lane-tail-2")):
            yield vector_case(f"{op}/{what}", t, op, [("ibuf", i8(rng, n)), ("wbuf", i8(rng, n))],
                              "obuf", doc=f"{op} of {n} elements on {L} lanes")
        big = np.array([127, 127, -128, -128, 100, -100, 64, -64] * 2)
        yield vector_case(f"{op}/saturate-int8", t, op,
                          [("ibuf", big), ("wbuf", np.array([127, 1, -128, -1, 100, -100, 2, 3] * 2))],
                          "obuf", doc="exact results beyond int8 saturate")
        wide = np.array([I32[1], I32[0], I32[1] - 5, I32[0] + 5, 2**30, -(2**30), 46341, -46341])
        yield vector_case(f"{op}/saturate-int32", t, op,
                          [("abuf", wide), ("abuf", np.array([1, -1, 10, -10, 2**30, -(2**30),
                                                             46341, 46341]))],
                          "abuf", doc="int32 results beyond int32 saturate")
        eq = i8(rng, 2 * L)
        yield vector_case(f"{op}/equal-operands", t, op, [("ibuf", eq), ("wbuf", eq.copy())],
                          "obuf", doc="src0 == src1 element for element")
        n = 2 * L + 3
        yield vector_case(f"{op}/addresses-top", t, op, [("ibuf", i8(rng, n)),
                                                         ("wbuf", i8(rng, n))], "obuf",
                          top=("src0", "src1"), dst_top=True,
                          doc="operands ending at the last element of their buffers")


def _unary(t, rng):
    L = t.vector_lanes
    for op in ("vrelu", "vcopy", "vclip", "vshr"):
        extra = {"vclip": {"lo": -20, "hi": 30}, "vshr": {"shift": 3}}.get(op, {})
        for s0, _, d in ROTATIONS:
            n = int(rng.integers(1, 4 * L))
            yield vector_case(f"{op}/buffers-{s0}-{d}", t, op, [(s0, data_for(s0, rng, n))], d,
                              fields=extra, doc=f"{op} from {s0} into {d}")
        yield vector_case(f"{op}/narrow-int32-to-int8", t, op,
                          [("abuf", np.array([300, -300, 127, 128, -129, I32[1], I32[0], 5]))],
                          "obuf", fields=extra, doc="int32 sources saturate into an int8 dst")
        yield vector_case(f"{op}/widen-int8-to-int32", t, op, [("ibuf", i8(rng, L + 1))], "abuf",
                          fields=extra, doc="int8 sources widen into abuf")
        yield vector_case(f"{op}/addresses-top", t, op, [("wbuf", i8(rng, L + 2))], "ibuf",
                          fields=extra, top=("src0",), dst_top=True)
    x = np.array([-32768 - 5, -32768, 0, 32767, 32767 + 5, -1, 1, 7])
    for lo, hi, what in ((-32768, 32767, "full-range"), (-5, -5, "lo-equals-hi"),
                         (10, -10, "lo-above-hi"), (-32768, -32768, "lo-hi-min"),
                         (32767, 32767, "lo-hi-max")):
        yield vector_case(f"vclip/{what}", t, "vclip", [("abuf", x)], "abuf",
                          fields={"lo": lo, "hi": hi}, doc=f"clip to [{lo}, {hi}]")
    ties = np.array([1, 3, 5, -1, -3, -5, 2, -2, 6, -6, 7, -7, 0, 127, -128, 4])
    for s in (0, 1, 2):
        yield vector_case(f"vshr/ties-shift-{s}", t, "vshr",
                          [("ibuf", np.clip(ties * (1 << max(s - 1, 0)), -128, 127))],
                          "obuf", fields={"shift": s},
                          doc="round half up: x + 2^(s-1) >> s, negative ties toward +inf")
    for s in (30, 31):
        w = np.array([I32[1], I32[0], 1 << (s - 1), -(1 << (s - 1)), 3 << (s - 1) if s < 31
                      else I32[1] - 1, 1, -1, 0])
        yield vector_case(f"vshr/shift-{s}", t, "vshr", [("abuf", w)], "abuf",
                          fields={"shift": s}, doc=f"shift {s} of int32 extremes")
    yield vector_case("vshr/saturate", t, "vshr", [("abuf", np.array([4000, -4000, 510, -514, 256,
                                                                     -258, 1, 0]))], "obuf",
                      fields={"shift": 1}, doc="shifted results beyond int8 saturate")
    yield vector_case("vrelu/negatives", t, "vrelu", [("ibuf", np.arange(-8, 8))], "obuf")


def _bias(t, rng):
    L = t.vector_lanes
    for c, n, what in ((1, L + 1, "channels-1"), (3, 12, "channels-wrap"), (L, L, "channels-len"),
                       (5, 13, "channels-ragged")):
        yield vector_case(f"vbias/{what}", t, "vbias", [("abuf", i32(rng, n, -2**20, 2**20)),
                                                        ("abuf", i32(rng, c, -2**20, 2**20))],
                          "abuf", fields={"channels": c}, n=n)
    yield vector_case("vbias/saturate-int8", t, "vbias",
                      [("ibuf", np.array([120, -120, 127, -128, 0, 5])),
                       ("wbuf", np.array([100, -100, 1]))], "obuf", fields={"channels": 3}, n=6)
    yield vector_case("vbias/saturate-int32", t, "vbias",
                      [("abuf", np.array([I32[1], I32[0], 2**30, -(2**30)])),
                       ("abuf", np.array([1, -1, 2**30 + 5, -(2**30) - 5]))], "abuf",
                      fields={"channels": 4}, n=4)
    mixed = rng.integers(-1000, 1000, 2 * L)
    yield vector_case("vbias/int32-into-int8", t, "vbias",
                      [("abuf", mixed), ("abuf", np.arange(L) * 7 - 20)], "obuf",
                      fields={"channels": L}, n=2 * L, doc="residual form: int32 + bias -> int8")


def requant_table(mult, shift):
    return np.stack([np.asarray(mult), np.asarray(shift)], axis=1).reshape(-1)


def _requant(t, rng):
    L = t.vector_lanes
    # acc * mult lands exactly on .5 after the shift: +-0.5, +-1.5, +-2.5 ...
    acc = np.array([1, 3, 5, -1, -3, -5, 2, -2, 255, -255, 7, -7, 0, 1, -1, 9])
    for s in (1, 2, 8):
        mult = [1 << (s - 1)] if s > 1 else [1]
        yield vector_case(f"vrequant/ties-shift-{s}", t, "vrequant",
                          [("abuf", acc), ("abuf", requant_table(mult, [s]))], "obuf",
                          fields={"channels": 1}, n=acc.size,
                          doc="round half up of acc*mult/2^shift: -1.5 -> -1, 1.5 -> 2")
    yield vector_case("vrequant/shift-0", t, "vrequant",
                      [("abuf", np.array([1, -1, 100, -100, 127, -128, 200, -200])),
                       ("abuf", requant_table([1], [0]))], "obuf", fields={"channels": 1}, n=8)
    yield vector_case("vrequant/shift-63", t, "vrequant",
                      [("abuf", np.array([I32[1], I32[0], 1, -1])),
                       ("abuf", requant_table([I32[1]], [63]))], "obuf",
                      fields={"channels": 1}, n=4, doc="the largest rounding shift")
    yield vector_case("vrequant/saturate", t, "vrequant",
                      [("abuf", np.array([I32[1], I32[0], 1 << 20, -(1 << 20), 300, -300])),
                       ("abuf", requant_table([I32[1], -(2**31)], [4, 4]))], "obuf",
                      fields={"channels": 2}, n=6, doc="products far beyond int8 saturate")
    yield vector_case("vrequant/mult-negative", t, "vrequant",
                      [("abuf", i32(rng, 2 * L, -5000, 5000)),
                       ("abuf", requant_table([-1000, -3], [10, 1]))], "obuf",
                      fields={"channels": 2}, n=2 * L)
    for zp, relu in ((-128, 1), (127, 0), (-3, 1), (50, 1)):
        yield vector_case(f"vrequant/zp{zp}-relu{relu}", t, "vrequant",
                          [("abuf", i32(rng, L + 3, -40000, 40000)),
                           ("abuf", requant_table([700, 900, 1100], [16, 15, 17]))], "obuf",
                          fields={"channels": 3, "zp": zp, "relu": relu}, n=L + 3,
                          doc="zero point and fused ReLU clamping at zp")
    # bias=1: (bias, mult, shift) triples; the bias add saturates at both int32 edges
    bias = np.array([2**31 - 1, -2**31, 1000, -7])
    triples = np.stack([bias, [1, 1, 3, -5], [24, 24, 4, 1]], axis=1).reshape(-1)
    yield vector_case("vrequant/bias", t, "vrequant",
                      [("abuf", np.array([10, -10, 6, 3, I32[1], I32[0], -2**20, 2**20, 0])),
                       ("abuf", triples)], "obuf", fields={"channels": 4, "bias": 1}, n=9,
                      doc="the fused bias add saturates to int32 before the multiply")
    yield vector_case("vrequant/bias-relu-abuf", t, "vrequant",
                      [("abuf", i32(rng, 2 * L + 1, -40000, 40000)),
                       ("abuf", np.stack([[-300, 5000, 77], [700, 900, -1100], [16, 15, 17]],
                                         axis=1).reshape(-1))], "abuf",
                      fields={"channels": 3, "bias": 1, "zp": -3, "relu": 1}, n=2 * L + 1,
                      doc="bias, zero point and ReLU together, into abuf")
    c = 7
    yield vector_case("vrequant/per-channel", t, "vrequant",
                      [("abuf", i32(rng, 3 * c, -2**24, 2**24)),
                       ("abuf", requant_table(rng.integers(1, 2**15, c), rng.integers(10, 30, c)))],
                      "abuf", fields={"channels": c}, n=3 * c, doc="into abuf (int32 dst)")


def _lut(t, rng):
    table = i8(rng, 256)
    for s0, s1, d in (("ibuf", "wbuf", "obuf"), ("obuf", "ibuf", "wbuf"), ("wbuf", "obuf", "ibuf")):
        yield vector_case(f"vlut/buffers-{s0}-{s1}-{d}", t, "vlut",
                          [(s0, i8(rng, 2 * t.vector_lanes + 1)), (s1, table)], d,
                          n=2 * t.vector_lanes + 1)
    yield vector_case("vlut/index-ends", t, "vlut",
                      [("ibuf", np.array([-128, 127, 0, -1, 1, -127, 126, -128])),
                       ("wbuf", np.arange(256) - 128)], "obuf", n=8,
                      doc="table entries 0 and 255 (indices -128 and 127)")


def pool_case(name, target, op, x, regs, src="ibuf", dst="obuf", doc=""):
    """x: (h, w, c); regs: pool_* values."""
    from isa.operands import window_out_hw
    h, w, c = x.shape
    full = {"pool_kh": 1, "pool_kw": 1, "pool_stride_h": 1, "pool_stride_w": 1,
            "pool_pad_top": 0, "pool_pad_left": 0, "pool_pad_bottom": 0, "pool_pad_right": 0,
            **regs}
    oh, ow = window_out_hw("pool", {"in_h": h, "in_w": w},
                           {k: v for k, v in full.items()} | {"conv_dilation_h": 1,
                                                              "conv_dilation_w": 1})
    b = Builder(name, target, doc)
    s = b.put("X", x.reshape(-1), src)
    d = b.alloc(dst, oh * ow * c)
    for reg, value in regs.items():
        b.emit("cfg", unit="vector", reg=reg, value=value)
    b.handoff("dma0", "vector")
    b.emit(op, dst=(dst, d), src0=(src, s), in_h=h, in_w=w, channels=c)
    b.output(dst, d, oh * ow * c, src="vector")
    return b


def _pool(t, rng):
    L = t.vector_lanes
    for op in ("vmaxpool", "vsumpool"):
        x = lambda h, w, c, lo=-128, hi=127: rng.integers(lo, hi + 1, (h, w, c))  # noqa: E731
        k2 = {"pool_kh": 2, "pool_kw": 2, "pool_stride_h": 2, "pool_stride_w": 2}
        yield pool_case(f"{op}/2x2-stride-2", t, op, x(4, 4, 3), k2)
        yield pool_case(f"{op}/3x3-stride-1-overlap", t, op, x(5, 4, 2),
                        {"pool_kh": 3, "pool_kw": 3})
        yield pool_case(f"{op}/1x1-stride-3-gap", t, op, x(7, 5, 2),
                        {"pool_stride_h": 3, "pool_stride_w": 2})
        for side in ("top", "left", "bottom", "right"):
            yield pool_case(f"{op}/pad-{side}", t, op, x(4, 4, 2),
                            {"pool_kh": 3, "pool_kw": 3, f"pool_pad_{side}": 1},
                            doc=f"padding on the {side} side only")
        yield pool_case(f"{op}/pad-all-negative", t, op, x(3, 3, 2, -128, -1),
                        {"pool_kh": 3, "pool_kw": 3, "pool_pad_top": 2, "pool_pad_left": 2,
                         "pool_pad_bottom": 2, "pool_pad_right": 2},
                        doc="windows of negative values and padding: padding never wins a max")
        yield pool_case(f"{op}/channels-lane-tail", t, op, x(2, 2, L + 1), k2)
        yield pool_case(f"{op}/from-abuf-into-abuf", t, op,
                        rng.integers(-2**28, 2**28, (4, 2, 2)), {"pool_kh": 2}, "abuf", "abuf")
        yield pool_case(f"{op}/regs-max", t, op, x(16, 2, 1),
                        {"pool_kh": 16, "pool_pad_top": 15, "pool_pad_bottom": 15,
                         "pool_pad_left": 15, "pool_pad_right": 15, "pool_kw": 16,
                         "pool_stride_h": 255, "pool_stride_w": 255},
                        doc="the largest pad (15) and stride (255) the registers hold")
    yield pool_case("vsumpool/saturate-int8", t, "vsumpool", np.full((2, 2, 2), 127),
                    {"pool_kh": 2, "pool_kw": 2})
    yield pool_case("vsumpool/saturate-int8-low", t, "vsumpool", np.full((2, 2, 2), -128),
                    {"pool_kh": 2, "pool_kw": 2})
    yield pool_case("vsumpool/int8-into-abuf", t, "vsumpool", np.full((3, 3, 1), 127),
                    {"pool_kh": 3, "pool_kw": 3}, "ibuf", "abuf")


def _random(t, rng, count=6):
    L = t.vector_lanes
    ops = [*BINARY, "vrelu", "vcopy", "vclip", "vshr", "vbias", "vrequant", "vlut"]
    for op in ops:
        for k in range(count):
            n = int(rng.integers(1, 6 * L))
            fmt = load_spec().instruction(op).format
            if op == "vrequant":
                c = int(rng.integers(1, 9))
                srcs = [("abuf", i32(rng, n, -2**24, 2**24)),
                        ("abuf", requant_table(rng.integers(-2**15, 2**15, c),
                                               rng.integers(0, 24, c)))]
                fields = {"channels": c, "zp": int(rng.integers(-128, 128)),
                          "relu": int(rng.integers(0, 2))}
                dst = str(rng.choice(["ibuf", "wbuf", "obuf"]))
            elif op == "vlut":
                s0, s1, dst = (str(v) for v in rng.permutation(["ibuf", "wbuf", "obuf"]))
                srcs, fields = [(s0, i8(rng, n)), (s1, i8(rng, 256))], {}
            elif op == "vbias":
                c = int(rng.integers(1, 9))
                s0 = str(rng.choice(["ibuf", "abuf", "obuf"]))
                srcs, fields = [(s0, data_for(s0, rng, n)), ("abuf", i32(rng, c, -300, 300))], \
                    {"channels": c}
                dst = str(rng.choice(["ibuf", "abuf", "obuf"]))
            else:
                bufs = [str(v) for v in rng.choice(["ibuf", "wbuf", "abuf", "obuf"], 3)]
                srcs = [(bufs[0], data_for(bufs[0], rng, n))]
                if fmt == "binary":
                    srcs.append((bufs[1], data_for(bufs[1], rng, n)))
                fields = {"vclip": {"lo": int(rng.integers(-300, 0)), "hi": int(rng.integers(0, 300))},
                          "vshr": {"shift": int(rng.integers(0, 32))}}.get(op, {})
                dst = bufs[2]
            yield vector_case(f"{op}/random-{k}", t, op, srcs, dst, fields=fields, n=n,
                              doc=f"seeded random {op}")


# ---------------------------------------------------------------- transformer instructions
ROWS = ("vrmax", "vrsum", "vrsub", "vrmul")
REDUCTIONS = ("vrmax", "vrsum")
NONLINEAR = ("vexp", "vrecip", "vrsqrt")


def row_case(name, target, op, tile, rows, cols, src0="ibuf", dst="abuf", src1=None,
             fields=None, doc="", top=(), dst_top=False):
    """A rows x cols row-wise instruction: `tile` at src0, src1 = (buf, rows values) for
    vrsub/vrmul; the result (rows values, or the whole tile) goes to the signature."""
    b = Builder(name, target, doc)
    addrs = {"src0": (src0, b.put("TILE", np.asarray(tile).reshape(-1), src0,
                                  top="src0" in top))}
    if src1 is not None:
        addrs["src1"] = (src1[0], b.put("ROWVAL", src1[1], src1[0], top="src1" in top))
    count = rows if op in REDUCTIONS else rows * cols
    d = b.alloc(dst, count, top=dst_top)
    b.handoff("dma0", "vector")
    b.emit(op, dst=(dst, d), **addrs, rows=rows, cols=cols, **(fields or {}))
    b.output(dst, d, count, src="vector")
    return b


def _row_src1(op, buf, rng, rows):
    """Per-row values: row maxima to subtract, or multipliers."""
    if op == "vrmul" and buf == "abuf":
        return (buf, i32(rng, rows, -2**16, 2**16))
    return (buf, data_for(buf, rng, rows))


def _rows(t, rng):
    L = t.vector_lanes
    for op in ROWS:
        fields = {"shift": 4} if op == "vrmul" else {}
        for s0, s1, d in ROTATIONS:
            rows, cols = int(rng.integers(1, 5)), int(rng.integers(1, 2 * L + 2))
            src1 = _row_src1(op, s1, rng, rows) if op not in REDUCTIONS else None
            yield row_case(f"{op}/buffers-{s0}-{s1 if src1 else ''}-{d}".replace("--", "-"), t,
                           op, data_for(s0, rng, rows * cols), rows, cols, s0, d, src1, fields,
                           doc=f"{op} from {s0} into {d}")
        for cols, what in ((1, "cols-1"), (L, "cols-lanes"), (L + 1, "lane-tail"),
                           (2 * L - 1, "lane-tail-2")):
            src1 = _row_src1(op, "abuf", rng, 3) if op not in REDUCTIONS else None
            yield row_case(f"{op}/{what}", t, op, i8(rng, 3 * cols), 3, cols, "ibuf", "abuf",
                           src1, fields, doc=f"3 rows of {cols} on {L} lanes: rows never share "
                           "a chunk")
        n = 2 * L + 1
        src1 = _row_src1(op, "wbuf", rng, 2) if op not in REDUCTIONS else None
        yield row_case(f"{op}/addresses-top", t, op, i8(rng, 2 * n), 2, n, "ibuf", "obuf", src1,
                       fields, top=("src0", "src1"), dst_top=True,
                       doc="operands ending at the last element of their buffers")
    neg = np.array([[-5, -128, -1, -7, -3], [-128, -128, -128, -128, -128]])
    yield row_case("vrmax/all-negative", t, "vrmax", neg, 2, 5, "ibuf", "obuf",
                   doc="rows of negative values: the max is negative, not 0")
    yield row_case("vrmax/int32-extremes", t, "vrmax",
                   np.array([I32[0], I32[1], 0, I32[0], I32[0] + 1, I32[0]]), 2, 3, "abuf", "abuf")
    yield row_case("vrmax/narrow-int32-to-int8", t, "vrmax",
                   np.array([300, -5, -300, -400, 100, 7]), 3, 2, "abuf", "obuf",
                   doc="a row max beyond int8 saturates into an int8 destination")
    big = np.array([[127] * 6, [-128] * 6, [100, -100, 27, 0, 0, 0]])
    yield row_case("vrsum/saturate-int8", t, "vrsum", big, 3, 6, "ibuf", "obuf",
                   doc="the exact row sum saturates once, into int8")
    yield row_case("vrsum/int8-into-abuf", t, "vrsum", big, 3, 6, "ibuf", "abuf")
    yield row_case("vrsum/saturate-int32", t, "vrsum",
                   np.array([I32[1], 5, I32[0], -5, I32[1], I32[0]]), 3, 2, "abuf", "abuf",
                   doc="int32 row sums beyond int32 saturate (the sum itself is exact)")
    yield row_case("vrsub/saturate-int8", t, "vrsub", np.array([[127, -128, 5], [-128, 127, 0]]),
                   2, 3, "ibuf", "obuf", ("wbuf", np.array([-100, 100])))
    yield row_case("vrsub/saturate-int32", t, "vrsub",
                   np.array([I32[1], I32[0], 0, I32[0], I32[1], 1]), 2, 3, "abuf", "abuf",
                   ("abuf", np.array([-7, 9])))
    ties = np.array([1, 3, 5, -1, -3, -5, 7, -7])
    for s in (1, 2):
        yield row_case(f"vrmul/ties-shift-{s}", t, "vrmul", ties, 2, 4, "abuf", "abuf",
                       ("abuf", np.array([1 << (s - 1), 1 << (s - 1)])), {"shift": s},
                       doc="round half up of x*m/2^shift: -1.5 -> -1, 1.5 -> 2")
    yield row_case("vrmul/shift-0", t, "vrmul", i8(rng, 8), 2, 4, "ibuf", "abuf",
                   ("abuf", np.array([-3, 1000])), {"shift": 0})
    yield row_case("vrmul/shift-31", t, "vrmul",
                   np.array([I32[1], I32[0], 1 << 30, -(1 << 30), I32[0], I32[1]]), 3, 2, "abuf",
                   "abuf", ("abuf", np.array([I32[1], I32[0], 2])), {"shift": 31},
                   doc="the largest shift of int32 x int32 products")
    yield row_case("vrmul/saturate", t, "vrmul", np.array([127, -128, 100, -100]), 2, 2, "ibuf",
                   "obuf", ("abuf", np.array([1000, -1000])), {"shift": 3},
                   doc="scaled results beyond int8 saturate")


def _nonlinear_inputs(op, rng, n):
    """Inputs spanning each function's domain, with its edge values first."""
    if op == "vexp":
        edges = [0, 1, 5, I32[1], -1, I32[0], -(1 << 20), -(40 << 16)]
        return np.array(edges + list(-i32(rng, n, 0, 20 << 16)))
    edges = [1, 2, 3, I32[1], I32[0], 0, -1, -2, 1 << 30, 7]
    return np.array(edges + list(i32(rng, n, -2**31, 2**31 - 1)))


def _nonlinear(t, rng):
    L = t.vector_lanes
    formats = {"vexp": (16, 15), "vrecip": (8, 20), "vrsqrt": (7, 15)}
    for op in NONLINEAR:
        fi, fo = formats[op]
        fields = {"in_frac": fi, "out_frac": fo}
        yield vector_case(f"{op}/edges", t, op, [("abuf", _nonlinear_inputs(op, rng, L + 3))],
                          "abuf", fields=fields, doc=f"{op} of its edge values and a spread")
        for s0, _, d in ROTATIONS:
            n = int(rng.integers(1, 4 * L))
            yield vector_case(f"{op}/buffers-{s0}-{d}", t, op, [(s0, data_for(s0, rng, n))], d,
                              fields=fields, doc=f"{op} from {s0} into {d}")
        hi_out = 30 if op == "vexp" else 31
        for fi, fo in ((0, 0), (31, hi_out), (0, hi_out), (31, 0), (1, 3)):
            yield vector_case(f"{op}/frac-{fi}-{fo}", t, op,
                              [("abuf", _nonlinear_inputs(op, rng, 2 * L))], "abuf",
                              fields={"in_frac": fi, "out_frac": fo},
                              doc=f"Q{fi} in, Q{fo} out")
        yield vector_case(f"{op}/into-int8", t, op, [("abuf", _nonlinear_inputs(op, rng, L))],
                          "obuf", fields={"in_frac": 4, "out_frac": 7},
                          doc="results saturate into an int8 destination")
        yield vector_case(f"{op}/addresses-top", t, op, [("abuf", _nonlinear_inputs(op, rng, 2))],
                          "abuf", fields=fields, top=("src0",), dst_top=True)


def _transformer_random(t, rng, count=4):
    L = t.vector_lanes
    for op in ROWS:
        for k in range(count):
            rows, cols = int(rng.integers(1, 6)), int(rng.integers(1, 3 * L))
            bufs = [str(v) for v in rng.choice(["ibuf", "wbuf", "abuf", "obuf"], 3)]
            src1 = _row_src1(op, bufs[1], rng, rows) if op not in REDUCTIONS else None
            fields = {"shift": int(rng.integers(0, 32))} if op == "vrmul" else {}
            yield row_case(f"{op}/random-{k}", t, op, data_for(bufs[0], rng, rows * cols), rows,
                           cols, bufs[0], bufs[2], src1, fields, doc=f"seeded random {op}")
    for op in NONLINEAR:
        for k in range(count):
            n = int(rng.integers(1, 6 * L))
            fields = {"in_frac": int(rng.integers(0, 32)),
                      "out_frac": int(rng.integers(0, 31 if op == "vexp" else 32))}
            dst = str(rng.choice(["ibuf", "abuf", "obuf"]))
            yield vector_case(f"{op}/random-{k}", t, op, [("abuf", _nonlinear_inputs(op, rng, n))],
                              dst, fields=fields, doc=f"seeded random {op}")


def generate(t, rng):
    for gen in (_binary, _unary, _bias, _requant, _lut, _pool, _random):
        yield from gen(t, rng)
    # after the existing generators, so their seeded draws (and their tests) stay as they were
    for gen in (_rows, _nonlinear, _transformer_random):
        yield from gen(t, rng)


__all__ = ["generate", "vector_case", "pool_case", "requant_table", "row_case", "ROWS",
           "NONLINEAR"]
