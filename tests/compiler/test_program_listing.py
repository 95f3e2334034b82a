"""The compiler emits instructions, not text: program.s is the disassembly printed when the
artifact is written, and it assembles back to the identical program.bin."""

import re

import pytest

from compiler.artifact import Artifact
from compiler.backends import build
from isa.asm import assemble, assemble_file


@pytest.mark.parametrize("model,target,kw", [
    ("mlp", "npu-tiny", {}),
    ("small_cnn", "npu-edge", {}),
    ("small_cnn", "npu-edge -dtype=fp16", {}),
    ("resnet18", "npu-server", {"resolution": 32}),   # four cores, gbarriers
])
def test_program_s_assembles_to_the_identical_program_bin(model, target, kw, tmp_path):
    art = build(model, target, num_calib=1, **kw).artifact
    art.save(tmp_path)
    again = assemble_file(tmp_path / "program.s")
    assert again.to_bytes() == (tmp_path / "program.bin").read_bytes() == art.program.to_bytes()
    assert Artifact.load(tmp_path).assembly == art.assembly


def test_the_listing_keeps_the_compilers_comments_and_labels():
    art = build("small_cnn", "npu-edge", num_calib=1).artifact
    text = art.assembly
    assert ".file \"small_cnn.s\"" in text and ".target npu-edge" in text
    assert "; ---- layer 1: conv1 (conv 32x32x9 -> 32x32x16" in text
    # the tile's row count is the cost model's choice (7 on npu-edge today), not this test's
    assert "L1_conv1:" in text
    assert re.search(r"  ; conv1 rows 0:\d+ cout 0:16 cin 0:9: weights\n", text)
    assert "; model input 'input.nhwc'" in text
    # the comments are only comments: dropping them changes nothing
    bare = "\n".join(line.split(";")[0] for line in text.splitlines())
    assert assemble(bare).to_bytes() == art.program.to_bytes()


def test_a_compile_produces_no_text(monkeypatch):
    import isa.asm.assembler as asm
    import isa.asm.disassembler as dis
    monkeypatch.setattr(asm._Assembler, "run", lambda *a: pytest.fail("assembler called"))
    monkeypatch.setattr(dis, "format_instruction", lambda *a: pytest.fail("text printed"))
    compiled = build("small_cnn", "npu-edge", num_calib=1)
    assert compiled.artifact.program.num_instructions > 0


def test_an_instruction_that_does_not_fit_the_target_is_a_clear_error(monkeypatch):
    """Codegen checks every instruction against the Target (here: against a smaller one, as
    if the code generator had a bug) and names layer, core, index and instruction."""
    from compiler.backends.npu import codegen
    from compiler.errors import CompilerError
    from isa.target import Target
    # npu-tiny's buffers with npu-edge's two DMA engines: an SRAM address out of range
    tiny, real = Target.create("npu-tiny -dma-engines=2"), codegen.check_instruction
    monkeypatch.setattr(codegen, "check_instruction", lambda ins, t, regs: real(ins, tiny, regs))
    with pytest.raises(CompilerError) as e:
        build("small_cnn", "npu-edge", num_calib=1)
    msg = str(e.value)
    assert "layer '" in msg and "core 0 instruction " in msg and "does not fit npu-edge" in msg
    assert "out of range" in msg and "a code generator bug" in msg
