"""make_instruction / encode_word (the compiler's path, no text) agree with encode_fields /
decode_word on every instruction, and refuse bad values with the same messages."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isa.codec import decode_word, encode_fields, encode_word, make_instruction
from isa.errors import EncodingError
from isa.spec import load_spec

SPEC = load_spec()


def values(ins):
    """A strategy of legal field values of one instruction."""
    fields = {}
    for f in ins.fields:
        if f.enum:
            fields[f.name] = st.sampled_from(sorted(SPEC.enums[f.enum].names))
        else:
            lo, hi = f.legal
            fields[f.name] = st.integers(lo, hi)
    return st.fixed_dictionaries(fields)


@pytest.mark.parametrize("mnemonic", sorted(SPEC.by_mnemonic))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_built_instruction_is_the_decoded_word(mnemonic, data):
    fields = data.draw(values(SPEC.by_mnemonic[mnemonic]))
    made = make_instruction(mnemonic, **fields)
    word = encode_fields(mnemonic, **fields)
    assert encode_word(made) == word
    decoded = decode_word(word)
    assert made == decoded and list(made.fields) == list(decoded.fields)


def test_buffer_pairs_and_enum_names_set_the_selector_fields():
    a = make_instruction("vadd", dst=("obuf", 0x10), src0=("abuf", 4), src1=("ibuf", 8), len=3)
    b = decode_word(encode_fields("vadd", dst_buf="obuf", dst=0x10, src0_buf="abuf", src0=4,
                                  src1_buf="ibuf", src1=8, len=3))
    assert a == b
    assert make_instruction("gemm", ibuf=("ibuf", 1), m=1, k=1, n=1)["ibuf"] == 1
    with pytest.raises(EncodingError, match="always addresses ibuf, not wbuf"):
        make_instruction("gemm", ibuf=("wbuf", 1), m=1, k=1, n=1)


@pytest.mark.parametrize("mnemonic,fields,message", [
    ("load", {"rows": 0, "cols": 1}, r"load: field 'rows' value 0 out of range 1..4095"),
    ("vadd", {"len": 1, "dst_buf": "xbuf"}, r"field 'dst_buf': unknown buf 'xbuf'; did you mean"),
    ("gemm", {"m": 1, "k": 1, "n": 1, "mm": 2}, r"unknown field\(s\) mm"),
    ("gem", {}, r"unknown mnemonic 'gem'; did you mean 'gemm'"),
])
def test_bad_values_are_refused_as_encode_fields_refuses_them(mnemonic, fields, message):
    for build in (make_instruction, encode_fields):
        with pytest.raises(EncodingError, match=message):
            build(mnemonic, **fields)


def test_a_hand_built_instruction_is_checked_when_encoded():
    from isa.codec import Instruction
    bad = Instruction(SPEC.by_mnemonic["vadd"], {**make_instruction("vadd", len=1).fields,
                                                 "len": 0})
    with pytest.raises(EncodingError, match="'len' value 0 out of range"):
        encode_word(bad)
