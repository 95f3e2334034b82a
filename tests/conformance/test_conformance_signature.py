"""The signature file format and the word diff."""

import numpy as np
import pytest

from isa.codec import make_instruction
from npusim.conformance import signature


def test_text_round_trip_is_one_hex_word_a_line_little_endian():
    data = bytes([1, 2, 3, 4, 0xff, 0, 0, 0x80])
    assert signature.to_text(data) == "04030201\n800000ff\n"
    assert signature.from_text(signature.to_text(data)) == data


def test_bad_signature_text_names_the_line():
    with pytest.raises(signature.SignatureError, match="sig:2"):
        signature.from_text("00000000\nzz\n", "sig")


def test_diff_names_the_writer_of_the_first_differing_word():
    instr = make_instruction("vadd", dst=("obuf", 0), src0=("ibuf", 0), src1=("wbuf", 0), len=8)
    writers = np.array([-2] * 4 + [7] * 4, np.int32)
    n, words = signature.diff(bytes(8), bytes(4) + b"\x01\0\0\0", 0x100, writers,
                              {7: (0, 7, instr)})
    assert n == 1 and words[0].word == 1 and words[0].address == 0x104
    assert words[0].writer.startswith("[core0 #7] vadd") and words[0].got == 1
    n, words = signature.diff(bytes(8), bytes(4), 0, writers, {7: (0, 7, instr)})
    assert n == 1 and words[0].got is None
