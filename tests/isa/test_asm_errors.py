"""Assembler errors: exact file:line:col, field, value and message parts for every error kind."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compiler.backends  # noqa: F401 - the cpu and gpu Target kinds come with it
from isa.asm import AsmError, assemble
from isa.errors import IsaError
from isa.spec import load_spec

GEMM = "gemm ibuf[0], wbuf[0], abuf[0], m=16, k=16, n=16"


def errors(src: str, target=None, filename="prog.s") -> list[AsmError]:
    with pytest.raises(AsmError) as e:
        assemble(src, filename=filename, target=target)
    assert isinstance(e.value, IsaError)
    return e.value.errors


def one(src: str, target=None) -> AsmError:
    errs = errors(src, target)
    assert len(errs) == 1, [str(x) for x in errs]
    return errs[0]


def test_the_documented_example_line():
    e = one(".target npu-edge\n" + "\n" * 10 + "    gemm ibuf[0], wbuf[0], k=40, m=1, n=1")
    assert str(e) == ("prog.s:12:28: error: gemm: field 'k' value 40 out of range 1..16 "
                      "(array_rows of npu-edge)")
    assert (e.file, e.line, e.column, e.field, e.value) == ("prog.s", 12, 28, "k", 40)


# (source line, target, column, field, message parts)
CASES = [
    ("gemm ibuf[0], wbuf[0], abuf[0], m=16, n=16", None, 1, "k",
     ["missing required field 'k'", "reduction depth", "range 1..511"]),
    ("gemm ibuf[0], wbuf[0], abuf[0], m=16, kk=16, n=16", None, 39, "kk",
     ["unknown field 'kk'", "did you mean 'k'?", "fields: ibuf, wbuf, abuf, m, k, n, acc"]),
    ("gemm ibuf[0], wbuf[0], abuf[0], m=16, k=16, n=16, m=2", None, 51, "m",
     ["field 'm' given twice (first at column 33)"]),
    ("load chan=0, sram=abuf[0], buf=ibuf, dram=0, rows=1, cols=1", None, 28, "buf",
     ["field 'buf' given twice (first at column 14)"]),
    ("gemm ibuf[0], wbuf[0], abuf[0], m=0, k=16, n=16", None, 33, "m",
     ["field 'm' value 0 out of range 1..65535", "input rows"]),
    # ISA 1.1's widened fields: k and n hold 1..511, buffer addresses 23 bits
    ("gemm ibuf[0], wbuf[0], abuf[0], m=1, k=512, n=16", None, 38, "k",
     ["field 'k' value 512 out of range 1..511", "reduction depth"]),
    ("gemm ibuf[0x800000], wbuf[0], abuf[0], m=1, k=1, n=1", None, 6, "ibuf",
     ["field 'ibuf' value 8388608 out of range 0..8388607", "input tile"]),
    ("gemm ibuf[0], wbuf[0], abuf[0], m=1, k=257, n=1", "npu -array=256x256", 38, "k",
     ["field 'k' value 257 out of range 1..256", "array_rows of npu -array=256x256"]),
    ("vclip dst=obuf[0], src0=obuf[0], len=1, lo=40000", None, 41, "lo",
     ["field 'lo' value 40000 out of range -32768..32767"]),
    ("signal unit=dmaX, sem=0", None, 8, "unit",
     ["value 'dmaX' is not a unit", "did you mean 'dma", "known: matrix, vector, dma0"]),
    ("load chan=0, sram=xbuf[0], dram=0, rows=1, cols=1", None, 14, "sram",
     ["'xbuf' in 'xbuf[0]' is not a buffer", "did you mean 'wbuf'?",
      "buffers: ibuf, wbuf, abuf, obuf"]),
    ("cfg unit=matrix, reg=12, value=1", None, 18, "reg", ["value 12 is not a reg",
                                                           "known: conv_kh=0"]),
    ("gemm ibuf[0], obuf[0], abuf[0], m=1, k=1, n=1", None, 15, None,
     ["operand 'obuf[0]' must be field=value", "ibuf[ADDR], wbuf[ADDR], abuf[ADDR]"]),
    ("gemm ibuf=wbuf[0], abuf[0], m=1, k=1, n=1", None, 6, "ibuf",
     ["field 'ibuf' always addresses ibuf, not wbuf"]),
    ("vadd obuf[0], src0=obuf[0], src1=obuf[0], len=1", None, 6, None,
     ["must be field=value", "name the operand, e.g. dst=obuf[0]"]),
    ("load chan=0, sram=0, dram=0, rows=abuf[1], cols=1", None, 30, "rows",
     ["field 'rows' is not a buffer address"]),
    ("load chan=0 sram=abuf[0], dram=0, rows=1, cols=1", None, 6, "chan",
     ["separate operands with commas"]),
    ("load chan=0, , sram=0, dram=0, rows=1, cols=1", None, 14, None, ["empty operand"]),
    ("halt now", None, 6, None, ["halt takes no operands, got 'now'"]),
    # an unclosed bracket or quote would hide the operands after it: the whole line is refused
    ("gemm ibuf[0], wbuf[0], abuf[0], m=1, k=1, n=1, acc=(1", None, 52, None,
     ["'(' at column 52 is never closed"]),
    ("gemm ibuf[(], wbuf[0], abuf[0], m=1, k=1, n=1", None, 10, None,
     ["'[' at column 10 is never closed"]),
    ('.file "x.s', None, 7, None, ["'\"' at column 7 is never closed"]),
    ("gemn ibuf[0]", None, 1, None, ["unknown mnemonic 'gemn'", "did you mean 'gemm'?"]),
    (".targte npu-edge", None, 1, None, ["unknown directive '.targte'",
                                        "did you mean '.target'?"]),
    # target checks: the column points at the operand that holds the offending field
    (GEMM.replace("k=16", "k=40"), "npu-edge", 39, "k",
     ["field 'k' value 40 out of range 1..16 (array_rows of npu-edge)"]),
    (GEMM.replace("n=16", "n=17"), "npu-edge", 45, "n",
     ["field 'n' value 17 out of range 1..16 (array_cols of npu-edge)"]),
    ("load chan=2, sram=ibuf[0], dram=0, rows=1, cols=1", "npu-edge", 6, "chan",
     ["field 'chan' value 2 out of range 0..1 (dma_chan of npu-edge)"]),
    ("wait unit=dma1, sem=0", "npu-tiny", 6, "unit",
     ["value dma1 is not a unit of npu-tiny (units: matrix, vector, dma0; dma_engines=1)"]),
    ("signal unit=matrix, sem=8", "npu-tiny", 21, "sem",
     ["field 'sem' value 8 out of range 0..7 (semaphore of npu-tiny)"]),
    ("store chan=0, sram=obuf[0], dram=0x100000, rows=1, cols=1", "npu-tiny", 29, "dram",
     ["field 'dram' value 0x100000 out of range 0x0..0xfffff (dram_addr of npu-tiny)"]),
    ("gemm ibuf[0], wbuf[0], abuf[70000], m=1, k=1, n=1", "npu-edge", 24, "abuf",
     ["abuf address 70000 out of range 0..65535 for npu-edge"]),
    ("gemm ibuf[0], wbuf[0], abuf[0xff01], m=16, k=16, n=16", "npu-edge", 24, "abuf",
     ["abuf region of 256 elements (m*n) at 0xff01 ends at 0x10001",
      "past abuf's 65536 elements on npu-edge"]),
    ("vadd dst=obuf[0xfff], src0=obuf[0], src1=obuf[0], len=2", "npu-tiny", 6, "dst",
     ["obuf region of 2 elements (len) at 0xfff"]),
    ("cfg unit=dma0, reg=conv_kh, value=3", None, 16, "reg",
     ["register conv_kh belongs to the matrix unit, not dma0; write it with unit=matrix"]),
    ("cfg unit=vector, reg=dma_planes, value=3", None, 18, "reg",
     ["belongs to the dma unit (dma0..dma7), not vector"]),
    ("cfg unit=vector, reg=pool_kh, value=0", None, 31, "value",
     ["pool_kh value 0 out of range 1..255 (pooling window height)"]),
]


@pytest.mark.parametrize("src,target,column,field,parts", CASES, ids=range(len(CASES)))
def test_error_location_and_message(src, target, column, field, parts):
    e = one("\n" + src, target)  # on line 2, so line numbers are checked too
    assert (e.file, e.line, e.column, e.field) == ("prog.s", 2, column, field)
    text = str(e)
    assert text.startswith(f"prog.s:2:{column}: error: ") and "\n" not in text
    for part in parts:
        assert part in text


def test_errors_are_collected_one_line_each():
    src = "nop\ngemm m=0, k=1, n=1\nfoo\nsignal unit=matrix, sem=99\nhalt\n"
    errs = errors(src)
    assert [(e.line, e.column) for e in errs] == [(2, 6), (3, 1), (4, 21)]
    lines = str(errs[0]).splitlines()
    assert len(lines) == 3 and all(": error: " in line for line in lines)


def test_collection_stops_at_twenty():
    with pytest.raises(AsmError) as e:
        assemble("foo\n" * 50, filename="p.s")
    assert len(e.value.errors) == 20 and e.value.truncated
    assert str(e.value).splitlines()[-1] == "p.s: error: too many errors (20), stopping"


def test_directive_errors():
    assert "cores must be numbered 0..n-1 without gaps" in str(one(".core 2"))
    assert ".core 2 out of range 0..1 for npu-edge -num-cores=2" in str(
        one(".target npu-edge -num-cores=2\n.core 2"))
    assert "'X' already defined on line 1" in str(one(".equ X, 1\n.equ X, 2"))
    assert "'A' already defined on line 1" in str(
        one(".tensor A, dram=0, shape=4, dtype=int8\n.equ A, 2"))
    assert ".equ takes a name and a value" in str(one(".equ X"))
    assert "second .target (the first is on line 1)" in str(one(".target npu-edge\n"
                                                                 ".target npu-edge"))
    assert ".target must come before any instruction" in str(one("nop\n.target npu-edge"))
    assert "did you mean 'npu-edge'?" in str(one(".target npu-edgy"))
    assert "is a cpu target" in str(one(".target cpu-host"))
    assert '.file takes a quoted name' in str(one(".file x.s"))


def test_target_conflict_with_the_caller():
    e = one(".target npu-tiny\nnop", target="npu-edge")
    assert (e.line, e.column, e.field) == (1, 9, "target")
    assert "conflicts with the target given on the command line ('npu-edge')" in str(e)


@pytest.mark.parametrize("src,parts", [
    (".tensor A, dram=0, shape=4", ["missing dtype="]),
    (".tensor A, dram=0, shape=4x, dtype=int8", ["shape '4x' is not like 16x16"]),
    (".tensor A, dram=0, shape=4x0, dtype=int8", ["zero dimension"]),
    (".tensor A, dram=0, shape=4, dtype=int9", ["dtype 'int9' is not one of",
                                                 "did you mean 'int8'?"]),
    (".tensor A, dram=0, shape=4, dtype=int8, size=4", ["is not dram=, shape= or dtype="]),
    (".target npu-tiny\n.tensor A, dram=0xfff01, shape=16x16, dtype=int8",
     ["bytes 0xfff01..0x100001 lie outside the 1048576 bytes of DRAM of npu-tiny"]),
])
def test_tensor_errors(src, parts):
    text = str(one(src))
    for part in parts:
        assert part in text


def test_duplicate_label_in_a_core_but_not_across_cores():
    assert "label 'x' already defined in core 0" in str(one("x: nop\nx: nop"))
    assert assemble("x: nop\n.core 1\nx: nop").labels == {0: {"x": 0}, 1: {"x": 0}}


# Lines glued from pieces of real syntax and junk: assembly either succeeds or raises AsmError.
_PIECES = sorted(load_spec().by_mnemonic) + [
    ".target", ".core", ".equ", ".tensor", ".file", "npu-tiny", "ibuf", "abuf", "k", "len",
    "unit", "reg", "dram", "shape=4x4", "dtype=int8", "[", "]", "(", ")", ",", "=", '"', ";",
    ":", " ", "0", "1", "-1", "0x10", "1<<40", "99999999999", "+", "*", "x", "dma0", "conv_kh"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join), min_size=1,
                max_size=5), st.sampled_from([None, "npu-tiny", "npu-edge -num-cores=2"]))
def test_any_text_assembles_or_raises_asm_error(lines, target):
    try:
        assemble("\n".join(lines), target=target)
    except AsmError as e:
        assert all(": error: " in line for line in str(e).splitlines())
