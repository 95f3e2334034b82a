"""asm -> bin -> disasm -> asm gives identical bytes: every example, and random programs."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isa.asm import Program, TensorDecl, assemble, assemble_file, disassemble, format_instruction
from isa.asm.program import DTYPES
from isa.checks import TargetCheckError, check_instruction
from isa.codec import decode_word, encode_fields
from isa.spec import load_spec

SPEC = load_spec()
EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.s"))


def test_there_are_examples():
    assert {p.name for p in EXAMPLES} >= {"gemm_tile.s", "conv_requant_relu.s", "maxpool.s",
                                          "two_core_barrier.s"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_golden_round_trip(path, tmp_path):
    prog = assemble_file(path)
    assert prog.target is not None and prog.tensors
    out = tmp_path / "p.bin"
    prog.save(out)
    loaded = Program.load(out)
    assert loaded == prog
    text = disassemble(loaded)
    again = assemble(text, filename="other.s")
    assert again.to_bytes() == out.read_bytes()
    assert disassemble(again) == text  # the canonical form is a fixed point
    for core in range(prog.num_cores):  # every core stream ends with halt
        assert prog.instructions(core)[-1].mnemonic == "halt"


def test_two_core_example_uses_both_cores_and_a_global_barrier():
    prog = assemble_file(next(p for p in EXAMPLES if p.name == "two_core_barrier.s"))
    assert prog.num_cores == 2
    for core in range(2):
        names = [i.mnemonic for i in prog.instructions(core)]
        assert names.count("gbarrier") == 1 and "gemm" in names


def _legal_cfg(word: int) -> bool:
    try:
        check_instruction(decode_word(word), None)  # cfg register owner and range
        return True
    except TargetCheckError:
        return False


@st.composite
def _words(draw):
    ins = draw(st.sampled_from(SPEC.instructions))
    values = {}
    for f in ins.fields:
        if f.enum:
            values[f.name] = draw(st.sampled_from(sorted(SPEC.enums[f.enum].values.values())))
        else:
            lo, hi = f.legal
            values[f.name] = draw(st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi])))
    return encode_fields(ins.mnemonic, SPEC, **values)


def instructions():
    """A random legal instruction word: every field drawn from its spec range or enum."""
    return _words().filter(_legal_cfg)


NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@st.composite
def programs(draw):
    cores = draw(st.lists(st.lists(instructions(), max_size=8), min_size=1, max_size=3))
    labels = {}
    for c, words in enumerate(cores):
        names = draw(st.lists(NAMES, max_size=3, unique=True))
        if names:
            labels[c] = {n: draw(st.integers(0, len(words))) for n in names}
    tensors = draw(st.dictionaries(NAMES, st.builds(
        TensorDecl, st.integers(0, 1 << 20), st.lists(st.integers(1, 64), min_size=1,
                                                      max_size=4).map(tuple),
        st.sampled_from(sorted(DTYPES))), max_size=3))
    source = draw(st.one_of(st.none(), st.from_regex(r"[a-z_]{1,8}\.s", fullmatch=True)))
    return Program(cores=cores, tensors=tensors, labels=labels, source=source)


@settings(max_examples=150, deadline=None)
@given(programs())
def test_random_programs_round_trip(prog):
    data = prog.to_bytes()
    assert Program.from_bytes(data) == prog
    again = assemble(disassemble(data))
    assert again.to_bytes() == data


@settings(max_examples=300, deadline=None)
@given(instructions(), st.randoms())
def test_operand_order_does_not_matter(word, rnd):
    text = format_instruction(decode_word(word))
    head, _, rest = text.partition(" ")
    parts = rest.split(", ") if rest else []
    rnd.shuffle(parts)
    assert assemble(f"{head} {', '.join(parts)}").cores[0] == [word]
