"""Assembler: operand forms, expressions, shorthands, directives, labels, cores; exact words."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from isa.asm import AsmError, assemble
from isa.asm.expr import ExprError, evaluate
from isa.codec import encode_fields
from isa.spec import load_spec

SPEC = load_spec()


def word(src: str, **kw) -> int:
    prog = assemble(src, **kw)
    assert prog.num_instructions == 1
    return prog.cores[0][0]


def test_gemm_word_matches_the_spec_bit_positions():
    w = word("gemm ibuf[0x40], wbuf[0], abuf[6], m=16, k=16, n=16, acc=1")
    f = SPEC.by_mnemonic["gemm"].field_map
    expected = (0x20 | 0x40 << f["ibuf"].lsb | 6 << f["abuf"].lsb | 16 << f["m"].lsb
                | 16 << f["k"].lsb | 16 << f["n"].lsb | 1 << f["acc"].lsb)
    assert w == expected


def test_every_value_form_gives_the_same_word():
    ref = encode_fields("load", chan=1, buf="abuf", sram=0x10, dram=0x1000, rows=3, cols=5,
                        stride=20, pad_top=1)
    forms = [
        "load chan=1, buf=abuf, sram=0x10, dram=0x1000, rows=3, cols=5, stride=20, pad_top=1",
        "load chan=0b1, sram=abuf[16], dram=4096, rows=3, cols=5, stride=20, pad_top=1",
        "load pad_top=1, stride=4*5, cols=5, rows=1+2, dram=1<<12, sram=abuf[0x20>>1], chan=1",
        "load chan=1, buf=2, sram=(2+2)*4, dram=0x1000, rows=3, cols=5, stride=20, pad_top=1",
        "  load   chan = 1 ,sram=abuf[ 0x10 ] , dram=0x1000,rows=3,cols=5,stride=20,pad_top=1  ",
    ]
    for src in forms:
        assert word(src) == ref, src


def test_negative_values_and_defaults():
    w = word("vclip dst=obuf[0], src0=abuf[4], len=8, lo=-128, hi=127")
    assert w == encode_fields("vclip", dst_buf="obuf", src0_buf="abuf", src0=4, len=8,
                              lo=-128, hi=127)


def test_fixed_buffer_field_accepts_bare_keyed_and_named_forms():
    ref = word("gemm ibuf[0x40], wbuf[2], abuf[3], m=1, k=1, n=1")
    assert word("gemm ibuf=0x40, wbuf=2, abuf=3, m=1, k=1, n=1") == ref
    assert word("gemm ibuf=ibuf[0x40], wbuf=wbuf[2], abuf=abuf[3], m=1, k=1, n=1") == ref


def test_comments_blank_lines_and_both_comment_characters():
    prog = assemble("\n; only a comment\n# another\nnop ; trailing\nhalt # trailing\n\n")
    assert [i.mnemonic for i in prog.instructions(0)] == ["nop", "halt"]


def test_equ_and_tensor_names_in_expressions():
    prog = assemble(".equ BASE, 0x100\n.equ ROWS, BASE >> 4\n"
                    ".tensor A, dram=BASE*2, shape=16x16, dtype=int8\n"
                    "load chan=0, sram=ibuf[0], dram=A+ROWS, rows=ROWS, cols=16, stride=16\n")
    instr = prog.instructions(0)[0]
    assert instr["dram"] == 0x210 and instr["rows"] == 16
    assert prog.tensors["A"].dram == 0x200 and prog.tensors["A"].shape == (16, 16)
    assert prog.tensors["A"].nbytes == 256


def test_tensor_declarations_are_kept_in_order():
    prog = assemble(".tensor B, dram=0x40, shape=16, dtype=int32\n"
                    ".tensor A, dram=0, shape=2x3x4, dtype=float16\n")
    assert list(prog.tensors) == ["B", "A"]
    assert prog.tensors["A"].shape == (2, 3, 4) and prog.tensors["A"].nbytes == 48
    assert prog.tensors["B"].nbytes == 64


def test_labels_are_instruction_indices_per_core():
    prog = assemble("start:\n nop\nmid: nop\n nop\nend:\n.core 1\nc1: halt\nc1_end:\n")
    assert prog.labels == {0: {"start": 0, "mid": 1, "end": 3}, 1: {"c1": 0, "c1_end": 1}}


def test_cores_and_reentering_a_core_appends():
    prog = assemble(".core 0\nnop\n.core 1\nhalt\n.core 0\nbarrier\n")
    assert [[i.mnemonic for i in prog.instructions(c)] for c in range(2)] == \
        [["nop", "barrier"], ["halt"]]


def test_target_directive_and_caller_target():
    assert assemble(".target npu-edge\nnop").target == "npu-edge"
    assert assemble("nop", target="npu-tiny").target == "npu-tiny"
    # an equal Target spelled differently is not a conflict; the caller's spelling is kept
    assert assemble(".target npu -array=16x16 -weight-buffers=2 -depthwise-mode=1\nnop",
                    target="npu-edge").target == "npu-edge"
    assert assemble(".target  npu-edge   -num-cores=2\n").target == "npu-edge -num-cores=2"
    assert assemble("nop").target is None


def test_cfg_registers_set_the_extent_checks_of_later_instructions():
    # 8x8x16 input: with a 3x3 kernel and no padding the output is 6x6x16 = 576 words,
    # with padding 1 it is 8x8x16 = 1024 words; abuf of npu-tiny holds 4096.
    conv = "conv ibuf[0], wbuf[0], abuf[{a}], in_h=8, in_w=8, cin=4, cout=4\n"
    pads = "".join(f"cfg unit=matrix, reg=conv_pad_{s}, value=1\n"
                   for s in ("top", "left", "bottom", "right"))
    kernel = "cfg unit=matrix, reg=conv_kh, value=3\ncfg unit=matrix, reg=conv_kw, value=3\n"
    assemble(kernel + conv.format(a=4096 - 144), target="npu-tiny")
    with pytest.raises(AsmError, match=r"oh\*ow\*cout, oh=8 ow=8"):
        assemble(kernel + pads + conv.format(a=4096 - 144), target="npu-tiny")


def test_dma_planes_register_is_per_channel():
    src = ("cfg unit=dma1, reg=dma_planes, value=4\n"
           "load chan=0, sram=ibuf[0x3f00], dram=0, rows=16, cols=16\n")
    assemble(src, target="npu-edge -ibuf-kb=16")  # dma0 still moves one plane: fits
    with pytest.raises(AsmError, match=r"dma_planes=4"):
        assemble(src.replace("chan=0", "chan=1"), target="npu-edge -ibuf-kb=16")


def test_file_directive_sets_the_source():
    assert assemble('.file "orig.s"\nnop', filename="x.s").source == "orig.s"
    assert assemble("nop", filename="dir/x.s").source == "x.s"
    assert assemble("nop").source is None


@given(st.recursive(st.integers(-1000, 1000).map(str),
                    lambda sub: st.tuples(sub, st.sampled_from(["+", "-", "*"]), sub)
                    .map(lambda t: f"({t[0]} {t[1]} {t[2]})"), max_leaves=12))
def test_expressions_evaluate_like_python_integers(expr):
    assert evaluate(expr, {}) == eval(expr)  # built only from integer literals and + - *


@pytest.mark.parametrize("text,value", [
    ("0x1F", 31), ("0b101", 5), ("-3", -3), ("1 << 4 >> 2", 4), ("-(2 + 3) * 4", -20),
    ("1_000", 1000), ("X * 2 + Y", 23)])
def test_expression_forms(text, value):
    assert evaluate(text, {"X": 10, "Y": 3}) == value


@pytest.mark.parametrize("text,part", [
    ("7 / 2", "operator '/' is not allowed"), ("2 ** 3", "operator '**' is not allowed"),
    ("f(1)", "is not allowed"), ("1.5", "is not an integer"), ("True", "is not an integer"),
    ("1 << 1000", "shift by 1000 outside 0..256"), ("ZZ", "unknown name 'ZZ'"),
    ("XX + 1", "did you mean 'X'?"), ("(1", "is not a number or an integer expression"),
    ("", "empty value")])
def test_expression_errors(text, part):
    with pytest.raises(ExprError) as e:
        evaluate(text, {"X": 1})
    assert part in str(e.value)
