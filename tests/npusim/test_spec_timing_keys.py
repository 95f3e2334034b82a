"""An instruction's cycle rule is the one its spec `timing` key names: in a copy of the spec
with one key edited, both the simulator and the compiler's cost model give that instruction
the new rule's cycles, and every other instruction keeps its own."""

import re

import pytest

from compiler.lower.cost import Hw
from compiler.lower.epilogue import Epilogue
from isa import timing
from isa.codec import instruction
from isa.errors import SpecError
from isa.spec import SPEC_PATH, load_spec
from isa.target import Target
from npusim.simulate import simulate

TARGET = Target.create("npu-edge")
LENGTH = 1000


def edited_spec(tmp_path, mnemonic: str, rule: str):
    """A copy of the spec where `mnemonic`'s timing key names `rule`."""
    text = SPEC_PATH.read_text()
    block = re.compile(rf'(mnemonic = "{mnemonic}"\n(?:(?!\[\[instruction\]\]).*\n)*?'
                       r'timing = )"\w+"')
    edited, count = block.subn(rf'\1"{rule}"', text)
    assert count == 1, f"no timing key of {mnemonic} in {SPEC_PATH}"
    path = tmp_path / "npu_isa.toml"
    path.write_text(edited)
    spec = load_spec(path)
    assert spec.instruction(mnemonic).timing == rule
    return spec


def simulated(spec, mnemonic: str) -> int:
    """Cycles of the simulator running one `mnemonic` (built from `spec`) and halt."""
    extra = {"channels": 1} if mnemonic in ("vrequant", "vbias") else {}
    program = [instruction(mnemonic, spec=spec, dst_buf="obuf", src0_buf="abuf",
                           src1_buf="abuf", src1=LENGTH, len=LENGTH, **extra),
               instruction("halt", spec=spec)]
    return simulate(program, TARGET, timing_only=True).cycles


def estimated(spec, mnemonic: str) -> int:
    return Hw.from_target(TARGET, spec=spec).cycles(mnemonic, len=LENGTH)


@pytest.mark.parametrize("mnemonic, rule", [("vrequant", "vector_elementwise"),
                                            ("vadd", "vector_requant")])
def test_editing_a_timing_key_changes_the_model_and_the_cost_model(tmp_path, mnemonic, rule):
    spec = load_spec()
    edited = edited_spec(tmp_path, mnemonic, rule)
    # vector_requant is vector_elementwise plus the multiplier's and the rounder's stages
    delta = timing.REQUANT_EXTRA_STAGES * (1 if rule == "vector_requant" else -1)
    assert simulated(edited, mnemonic) == simulated(spec, mnemonic) + delta
    assert estimated(edited, mnemonic) == estimated(spec, mnemonic) + delta
    other = "vadd" if mnemonic == "vrequant" else "vrequant"
    assert simulated(edited, other) == simulated(spec, other)
    assert estimated(edited, other) == estimated(spec, other)


def test_the_cost_models_estimators_follow_the_edited_key(tmp_path):
    """A quantized conv epilogue runs one vrequant per tile, adding the bias (bias=1): its
    estimate loses exactly the requantizer's extra stages and the bias stage when vrequant's
    key names the elementwise rule."""
    epilogue = Epilogue(bias=None, mult=1, shift=0)
    assert epilogue.vector_ops().count("vrequant") == 1
    edited = edited_spec(tmp_path, "vrequant", "vector_elementwise")
    before = epilogue.cycles(Hw.from_target(TARGET), LENGTH)
    after = epilogue.cycles(Hw.from_target(TARGET, spec=edited), LENGTH)
    assert after == before - timing.REQUANT_EXTRA_STAGES - timing.REQUANT_BIAS_STAGES


def test_a_key_naming_a_rule_the_instruction_has_no_operands_for_is_a_spec_error(tmp_path):
    edited = edited_spec(tmp_path, "vadd", "matrix_gemm")
    with pytest.raises(SpecError, match=r"'vadd'.*'matrix_gemm' needs operand\(s\) m, k, n"):
        estimated(edited, "vadd")
