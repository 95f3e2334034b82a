"""vrequant bias=1 is vbias into abuf then vrequant, bit for bit, one stage longer than vrequant."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from isa import instruction as I
from isa import semantics
from isa.codec import decode_word, encode
from isa.spec import load_spec
from npusim.exec import CoreState, execute

INT32 = st.integers(-2 ** 31, 2 ** 31 - 1)
# values near the int32 edges, where vbias saturates, as often as ordinary ones
EDGY = st.one_of(INT32, st.integers(2 ** 31 - 300, 2 ** 31 - 1), st.integers(-2 ** 31, -2 ** 31 + 300),
                 st.integers(-1000, 1000))


def _run_both(acc, bias, mult, shift, zp, relu, channels, target="npu-tiny"):
    """(two-instruction output, fused output, two-instruction cycles, fused cycles)."""
    n = len(acc)
    st_ = CoreState(target)
    ab = st_.buffers["abuf"]
    ab[0:n] = acc
    pairs, triples = 2000, 3000
    ab[2 * n + 100:2 * n + 100 + channels] = bias
    ab[pairs:pairs + 2 * channels:2], ab[pairs + 1:pairs + 2 * channels:2] = mult, shift
    ab[triples:triples + 3 * channels:3] = bias
    ab[triples + 1:triples + 3 * channels:3] = mult
    ab[triples + 2:triples + 3 * channels:3] = shift
    common = dict(dst_buf="obuf", src0_buf="abuf", src1_buf="abuf", len=n, channels=channels)
    # the two-instruction form: vbias into a scratch int32 copy, then vrequant of it
    scratch = n
    c1 = execute(I("vbias", dst_buf="abuf", dst=scratch, src0_buf="abuf", src0=0,
                   src1_buf="abuf", src1=2 * n + 100, len=n, channels=channels), st_, None).cycles
    c2 = execute(I("vrequant", dst=0, src0=scratch, src1=pairs, zp=zp, relu=relu, **common),
                 st_, None).cycles
    two = st_.buffers["obuf"][0:n].copy()
    fused = execute(I("vrequant", dst=n, src0=0, src1=triples, zp=zp, relu=relu, bias=1,
                      **common), st_, None)
    return two, st_.buffers["obuf"][n:2 * n].copy(), c1 + c2, fused.cycles, c2


@settings(max_examples=300, deadline=None)
@given(data=st.data(), channels=st.integers(1, 9), pixels=st.integers(1, 7),
       extra=st.integers(0, 8), zp=st.integers(-128, 127), relu=st.integers(0, 1))
def test_fused_bias_is_vbias_then_vrequant_bit_for_bit(data, channels, pixels, extra, zp, relu):
    """Random int32 accumulators and biases (the saturating edges included), any multiplier
    and shift, len a whole or partial number of pixels: the outputs agree exactly and the
    fused form costs the two-instruction form minus vbias, plus one cycle."""
    n = channels * pixels + extra % channels  # a partial last pixel exercises c = i % channels
    acc = data.draw(st.lists(EDGY, min_size=n, max_size=n))
    bias = data.draw(st.lists(EDGY, min_size=channels, max_size=channels))
    mult = data.draw(st.lists(INT32, min_size=channels, max_size=channels))
    shift = data.draw(st.lists(st.integers(0, 63), min_size=channels, max_size=channels))
    two, fused, _, cycles, requant = _run_both(acc, bias, mult, shift, zp, relu, channels)
    assert fused.tolist() == two.tolist()
    assert cycles == requant + 1
    # and the semantics reference says the same
    ref = semantics.requantize(np.array(acc, np.int32), np.array(mult, np.int32),
                               np.array(shift, np.int32), zp, bool(relu), channels,
                               bias=np.array(bias, np.int32))
    assert ref.tolist() == two.tolist()


def test_saturating_bias_on_hand_worked_values():
    """2^31 - 1 + 10 saturates to 2^31 - 1 before the multiply (it does not wrap): x1 >> 24
    gives 128 -> 127 at int8; -2^31 - 10 saturates to -2^31 -> -128."""
    acc = [2 ** 31 - 1, -2 ** 31, 5, 5]
    two, fused, both, one, _ = _run_both(acc, [10, -10], [1, 1], [24, 24], 0, 0, 2)
    assert fused.tolist() == two.tolist() == [127, -128, 0, 0]
    # npu-tiny: P=2, L=4: vbias 2 + 1, vrequant 2 + 2 + 1, fused 2 + 2 + 1 + 1
    assert (both, one) == (3 + 5, 6)


def test_the_bias_field_is_an_isa_1_1_bit_of_its_own():
    """Bit 118 (reserved in 1.0, outside the split fields' parts): a word with bias=0 is the
    1.0 word, with bias=1 it needs ISA 1.1; the src1 extent is 3 * channels."""
    spec = load_spec()
    ins = spec.instruction("vrequant")
    f = ins.field_map["bias"]
    assert (f.lsb, f.width, f.since) == (118, 1, "1.1")
    plain = I("vrequant", len=8, channels=2, src1_buf="abuf")
    fused = I("vrequant", len=8, channels=2, src1_buf="abuf", bias=1)
    w0, w1 = int.from_bytes(encode(plain), "little"), int.from_bytes(encode(fused), "little")
    assert w1 ^ w0 == 1 << 118
    assert spec.words_version([w0]) == (1, 0) and spec.words_version([w1]) == (1, 1)
    assert decode_word(w1).fields["bias"] == 1
    from isa.operands import extents
    assert extents(fused, {})["src1"].count == 6 and extents(plain, {})["src1"].count == 4
