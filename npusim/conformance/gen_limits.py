"""Conformance tests at the limits of the fields: every count field at its largest legal value
on the Target, operands ending at the last element of their buffers, the buffer choices the
directed tests leave out. Each is dropped (and listed) where the Target's buffers cannot hold it."""

from __future__ import annotations

import numpy as np

from isa.spec import load_spec
from npusim.conformance.case import Builder, tolerant
from npusim.conformance.coverage import field_max
from npusim.conformance.gen_dma import load_case
from npusim.conformance.gen_matrix import conv_case, dwconv_case, gemm_case
from npusim.conformance.gen_vector import (BINARY, i8, i32, pool_case, requant_table,
                                           row_case, vector_case)

MAX_LEN = 65535  # gemm m: its 16-bit field


def _len_max(t) -> int:
    """The longest vector operand on `t` (coverage.field_max of `len`): the largest buffer."""
    return field_max(load_spec().instruction("vadd").field_map["len"], t)


def _store_limits(t, rng):
    def store(name, rows, cols, stride, at_zero=False):
        def make():
            b = Builder(name, t, f"store of {rows} x {cols}, stride {stride}")
            region = b.tensor("REGION", np.full(rows * cols, 0x33, np.int8), at=0) \
                if at_zero else None
            if at_zero:
                b.dram_next = 64 * (-(-rows * cols // 64))
            data = b.put("DATA", i8(rng, rows * cols), "obuf")
            if region is None:
                region = b.tensor("REGION", np.full(rows * cols, 0x33, np.int8))
            b.emit("store", chan=0, sram=("obuf", data), dram=region, rows=rows, cols=cols,
                   stride=stride)
            back = b.alloc("obuf", rows * cols)
            b.load("obuf", back, region, 1, rows * cols) if rows * cols <= 4095 else \
                b.load("obuf", back, region, rows, cols)
            b.output("obuf", back, rows * cols)
            return b
        return tolerant(name, make)
    yield store("limits/store-rows-max", 4095, 1, 1)
    yield store("limits/store-cols-max", 1, 4095, 0)
    yield store("limits/store-stride-max", 1, 8, (1 << 24) - 1)
    yield store("limits/store-dram-zero", 2, 4, 4, at_zero=True)
    yield tolerant("limits/load-rows-max", lambda: load_case(
        "limits/load-rows-max", t, rng, "ibuf", rows=4095, cols=1, stride=1, dirty=False))
    yield tolerant("limits/load-cols-max", lambda: load_case(
        "limits/load-cols-max", t, rng, "ibuf", rows=1, cols=4095, dirty=False))


def _matrix_limits(t, rng):
    yield tolerant("limits/gemm-m-max", lambda: gemm_case("limits/gemm-m-max", t, MAX_LEN, 1, 1,
                                                          rng))
    yield tolerant("limits/conv-addresses-top", lambda: _conv_top(t, rng))
    yield tolerant("limits/conv-in_h-max", lambda: conv_case("limits/conv-in_h-max", t, 1023, 1,
                                                             1, 1, rng))
    yield tolerant("limits/conv-in_w-max", lambda: conv_case("limits/conv-in_w-max", t, 1, 1023,
                                                             1, 1, rng))
    yield tolerant("limits/conv-cin-max", lambda: conv_case("limits/conv-cin-max", t, 1, 1,
                                                            4095, 1, rng))
    from isa.timing import depthwise_cols
    if depthwise_cols(t):  # the array's depthwise mode
        yield tolerant("limits/dwconv-in_h-max", lambda: dwconv_case(
            "limits/dwconv-in_h-max", t, 1023, 1, 1, rng))
        yield tolerant("limits/dwconv-in_w-max", lambda: dwconv_case(
            "limits/dwconv-in_w-max", t, 1, 1023, 1, rng))
        yield tolerant("limits/dwconv-addresses-top", lambda: _dwconv_top(t, rng))


def _conv_top(t, rng):
    b = Builder("limits/conv-addresses-top", t, "conv operands ending at their buffers' ends")
    x = b.put("X", i8(rng, 3 * 3 * 2), "ibuf", top=True)
    w = b.put("Wt", i8(rng, 2 * 2 * 2 * 2), "wbuf", top=True)
    acc = b.alloc("abuf", 2 * 2 * 2, top=True)
    b.emit("cfg", unit="matrix", reg="conv_kh", value=2)
    b.emit("cfg", unit="matrix", reg="conv_kw", value=2)
    b.handoff("dma0", "matrix")
    b.emit("conv", ibuf=x, wbuf=w, abuf=acc, in_h=3, in_w=3, cin=2, cout=2)
    b.output("abuf", acc, 8, src="matrix")
    return b


def _dwconv_top(t, rng):
    b = Builder("limits/dwconv-addresses-top", t, "dwconv operands ending at their buffers' ends")
    x = b.put("X", i8(rng, 3 * 3 * 2), "ibuf", top=True)
    w = b.put("Wt", i8(rng, 2 * 2 * 2), "wbuf", top=True)
    acc = b.alloc("abuf", 2 * 2 * 2, top=True)
    b.emit("cfg", unit="matrix", reg="conv_kh", value=2)
    b.emit("cfg", unit="matrix", reg="conv_kw", value=2)
    b.handoff("dma0", "matrix")
    b.emit("dwconv", ibuf=x, wbuf=w, abuf=acc, in_h=3, in_w=3, channels=2)
    b.output("abuf", acc, 8, src="matrix")
    return b


def _vector_limits(t, rng):
    n = _len_max(t)
    for op in BINARY:
        yield tolerant(f"limits/{op}-len-max", lambda op=op: vector_case(
            f"limits/{op}-len-max", t, op, [("ibuf", i8(rng, n)), ("wbuf", i8(rng, n))], "ibuf",
            dst_top=True))
    for op, extra in (("vrelu", {}), ("vcopy", {}), ("vclip", {"lo": 0, "hi": 0}),
                      ("vshr", {"shift": 1})):
        yield tolerant(f"limits/{op}-len-max", lambda op=op, extra=extra: vector_case(
            f"limits/{op}-len-max", t, op, [("ibuf", i8(rng, n))], "wbuf", fields=extra))
        yield tolerant(f"limits/{op}-len-1", lambda op=op, extra=extra: vector_case(
            f"limits/{op}-len-1", t, op, [("obuf", i8(rng, 1))], "obuf", fields=extra))
    table = lambda c: requant_table(rng.integers(1, 2**12, c), rng.integers(8, 20, c))  # noqa
    for s0, dst in (("ibuf", "wbuf"), ("wbuf", "obuf"), ("obuf", "ibuf")):
        yield tolerant(f"limits/vrequant-{s0}-{dst}", lambda s0=s0, dst=dst: vector_case(
            f"limits/vrequant-{s0}-{dst}", t, "vrequant", [(s0, i8(rng, 9)), ("abuf", table(3))],
            dst, fields={"channels": 3}, n=9, top=("src0",), dst_top=True))
    yield tolerant("limits/vrequant-table-top", lambda: vector_case(
        "limits/vrequant-table-top", t, "vrequant", [("ibuf", i8(rng, 1)), ("abuf", table(1))],
        "obuf", fields={"channels": 1}, n=1, top=("src1",)))
    yield tolerant("limits/vrequant-len-max", lambda: vector_case(
        "limits/vrequant-len-max", t, "vrequant", [("ibuf", i8(rng, n)), ("abuf", table(5))],
        "wbuf", fields={"channels": 5}, n=n))
    yield tolerant("limits/vrequant-channels-max", lambda: vector_case(
        "limits/vrequant-channels-max", t, "vrequant",
        [("ibuf", i8(rng, 4095)), ("abuf", table(4095))], "obuf", fields={"channels": 4095},
        n=4095))
    for s0, s1, dst in (("wbuf", "ibuf", "wbuf"), ("ibuf", "obuf", "obuf")):
        yield tolerant(f"limits/vbias-{s0}-{s1}-{dst}", lambda s0=s0, s1=s1, dst=dst: vector_case(
            f"limits/vbias-{s0}-{s1}-{dst}", t, "vbias", [(s0, i8(rng, 6)), (s1, i8(rng, 3))],
            dst, fields={"channels": 3}, n=6, top=("src0", "src1"), dst_top=True))
    yield tolerant("limits/vbias-len-1", lambda: vector_case(
        "limits/vbias-len-1", t, "vbias", [("ibuf", i8(rng, 1)), ("wbuf", i8(rng, 1))], "obuf",
        fields={"channels": 1}, n=1))
    yield tolerant("limits/vbias-len-max", lambda: vector_case(
        "limits/vbias-len-max", t, "vbias", [("ibuf", i8(rng, n)), ("wbuf", i8(rng, 7))], "ibuf",
        fields={"channels": 7}, n=n, dst_top=True))
    yield tolerant("limits/vbias-channels-max", lambda: vector_case(
        "limits/vbias-channels-max", t, "vbias", [("ibuf", i8(rng, 4095)),
                                                  ("abuf", i32(rng, 4095, -99, 99))], "obuf",
        fields={"channels": 4095}, n=4095))
    yield tolerant("limits/vrequant-len-1", lambda: vector_case(
        "limits/vrequant-len-1", t, "vrequant", [("abuf", i32(rng, 1, -999, 999)),
                                                 ("abuf", table(1))], "obuf",
        fields={"channels": 1}, n=1))
    yield tolerant("limits/vlut-addresses-top", lambda: vector_case(
        "limits/vlut-addresses-top", t, "vlut", [("ibuf", i8(rng, 5)), ("wbuf", i8(rng, 256))],
        "obuf", n=5, top=("src0", "src1"), dst_top=True))
    yield tolerant("limits/vlut-len-1", lambda: vector_case(
        "limits/vlut-len-1", t, "vlut", [("ibuf", i8(rng, 1)), ("wbuf", i8(rng, 256))], "obuf",
        n=1))
    yield tolerant("limits/vlut-len-max", lambda: vector_case(
        "limits/vlut-len-max", t, "vlut", [("ibuf", i8(rng, n)), ("wbuf", i8(rng, 256))], "ibuf",
        n=n, dst_top=True))
    for op in ("vmaxpool", "vsumpool"):
        for src, dst in (("wbuf", "ibuf"), ("obuf", "wbuf")):
            yield tolerant(f"limits/{op}-{src}-{dst}", lambda op=op, src=src, dst=dst: _pool_top(
                t, rng, op, src, dst))
        for what, shape in (("in-1x1", (1, 1, 3)), ("in_h-max", (1023, 1, 1)),
                            ("in_w-max", (1, 1023, 1)), ("channels-max", (1, 1, 4095))):
            yield tolerant(f"limits/{op}-{what}", lambda op=op, what=what, shape=shape: pool_case(
                f"limits/{op}-{what}", t, op, rng.integers(-128, 128, shape), {}))


def _pool_top(t, rng, op, src, dst):
    name = f"limits/{op}-{src}-{dst}"
    b = Builder(name, t, f"{op} from the top of {src} into the top of {dst}")
    s = b.put("X", i8(rng, 2 * 2 * 2), src, top=True)
    d = b.alloc(dst, 2, top=True)
    b.emit("cfg", unit="vector", reg="pool_kh", value=2)
    b.emit("cfg", unit="vector", reg="pool_kw", value=2)
    b.handoff("dma0", "vector")
    b.emit(op, dst=(dst, d), src0=(src, s), in_h=2, in_w=2, channels=2)
    b.output(dst, d, 2, src="vector")
    return b


def _transformer_limits(t, rng):
    n, rows = _len_max(t), MAX_LEN  # rows: the row formats' 16-bit field
    for op in ("vrmax", "vrsum", "vrsub", "vrmul"):
        src1 = ("wbuf", i8(rng, rows)) if op in ("vrsub", "vrmul") else None
        fields = {"shift": 1} if op == "vrmul" else {}
        dst = "abuf" if op in ("vrmax", "vrsum") else "obuf"
        yield tolerant(f"limits/{op}-rows-max", lambda op=op, src1=src1, fields=fields, dst=dst:
                       row_case(f"limits/{op}-rows-max", t, op, i8(rng, rows), rows, 1, "ibuf",
                                dst, src1, fields))
        yield tolerant(f"limits/{op}-cols-max", lambda op=op, fields=fields: row_case(
            f"limits/{op}-cols-max", t, op, i8(rng, 4095), 1, 4095, "ibuf", "abuf",
            ("abuf", i32(rng, 1, -99, 99)) if op in ("vrsub", "vrmul") else None, fields))
        yield tolerant(f"limits/{op}-1x1", lambda op=op, fields=fields: row_case(
            f"limits/{op}-1x1", t, op, i8(rng, 1), 1, 1, "obuf", "wbuf",
            ("ibuf", i8(rng, 1)) if op in ("vrsub", "vrmul") else None, fields))
    for op in ("vexp", "vrecip", "vrsqrt"):
        # the largest buffer (ibuf on npu-edge) holds the longest operand: int8 there
        yield tolerant(f"limits/{op}-len-max", lambda op=op: vector_case(
            f"limits/{op}-len-max", t, op, [("ibuf", i8(rng, n))], "wbuf",
            fields={"in_frac": 4, "out_frac": 4}))
        yield tolerant(f"limits/{op}-len-1", lambda op=op: vector_case(
            f"limits/{op}-len-1", t, op, [("ibuf", i8(rng, 1))], "abuf",
            fields={"in_frac": 2, "out_frac": 20}))


def generate(t, rng):
    for gen in (_store_limits, _matrix_limits, _vector_limits):
        yield from gen(t, rng)
    yield from _transformer_limits(t, rng)  # last: the earlier draws stay as they were
