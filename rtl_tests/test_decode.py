"""The RTL decodes a family of instructions through one member's field macros (vadd's for the
binary format, ...): that is sound only while the spec places those fields identically."""

import pytest

from isa.spec import load_spec

SPEC = load_spec()

# (macro owner, fields the RTL reads through its macros, instructions decoded that way)
SHARED_DECODES = [
    ("vadd", ("dst_buf", "dst", "src0_buf", "src0", "src1_buf", "src1", "len"),
     [i.mnemonic for i in SPEC.instructions if getattr(i, "format", None) == "binary"]),
    ("vrelu", ("dst_buf", "dst", "src0_buf", "src0", "len"),
     [i.mnemonic for i in SPEC.instructions if getattr(i, "format", None) == "unary"]),
    ("vmaxpool", ("dst_buf", "dst", "src0_buf", "src0", "in_h", "in_w", "channels"),
     [i.mnemonic for i in SPEC.instructions if getattr(i, "format", None) == "pool"]),
    ("vrequant", ("channels",), ["vbias"]),
    # the row formats ride the binary/unary decodes: rows where len is, cols where channels is
    ("vadd", ("dst_buf", "dst", "src0_buf", "src0", "src1_buf", "src1", "len:rows"),
     [i.mnemonic for i in SPEC.instructions if getattr(i, "format", None) == "rowbcast"]),
    ("vrelu", ("dst_buf", "dst", "src0_buf", "src0", "len:rows"),
     [i.mnemonic for i in SPEC.instructions if getattr(i, "format", None) == "rowreduce"]),
    ("vrequant", ("channels:cols",), ["vrsub", "vrmul"]),
    ("vrmax", ("rows", "cols"), ["vrsum", "vrsub", "vrmul"]),
    ("vexp", ("in_frac", "out_frac"), ["vrecip", "vrsqrt"]),
]


@pytest.mark.parametrize("owner,fields,members", SHARED_DECODES,
                         ids=[d[0] for d in SHARED_DECODES])
def test_shared_decode_positions(owner, fields, members):
    assert len(members) > 1 or owner == "vrequant", f"no instructions share {owner}'s decode"
    assert members, f"no instructions share {owner}'s decode"
    ref = SPEC.by_mnemonic[owner].field_map
    for m in members:
        mine = SPEC.by_mnemonic[m].field_map
        used = [p for f in SPEC.by_mnemonic[m].fields for p in f.parts]  # (lsb, width)
        for spec_f in fields:
            f, g = spec_f.split(":") if ":" in spec_f else (spec_f, spec_f)  # owner's: member's
            # (lsb, width) of each part (ISA 1.1): the member's parts are the owner's, or their
            # first ones when the owner's later parts are bits the member reserves (zero in its
            # words: vadd's 23-bit len read as vrsub's 16-bit rows)
            n = len(mine[g].parts)
            extra = ref[f].parts[n:]
            clash = [(a, b) for a, b in extra for c, d in used if a < c + d and c < a + b]
            assert mine[g].parts == ref[f].parts[:n] and not clash, (
                f"{m}.{g} is at {mine[g].parts}, but the RTL decodes it with "
                f"{owner}'s {f} macro at {ref[f].parts}; decode it per instruction")


def test_every_vector_instruction_is_decoded_by_a_format():
    vector = [i.mnemonic for i in SPEC.instructions if i.cls == "vector"]
    covered = {m for _, _, members in SHARED_DECODES for m in members}
    assert set(vector) <= covered, f"vector instructions the RTL has no decode for: " \
                                   f"{sorted(set(vector) - covered)}"
