"""The spec's [dataflow] table: the -dataflow choices, the rules and field limits it replaces,
and the errors a wrong entry gets."""

import pytest

from isa.errors import SpecError
from isa.spec import SPEC_PATH, load_spec
from isa.target import Target


def test_the_dataflows_are_the_targets_choices_with_ws_the_default():
    spec = load_spec()
    assert spec.dataflow_names == ("ws", "os")
    attr = Target.create("npu").spec.attr("dataflow")
    assert (attr.default, attr.choices) == ("ws", ("ws", "os"))


def test_os_replaces_the_matrix_rules_and_lifts_gemm_k_only():
    spec = load_spec()
    gemm, conv = spec.instruction("gemm"), spec.instruction("conv")
    assert gemm.limits_for("ws") == {"k": "array_rows", "n": "array_cols"}
    assert gemm.limits_for("os") == {"n": "array_cols"}
    assert conv.limits_for("os") == conv.limits_for("ws") == {"cout": "array_cols"}
    assert (conv.timing_for("ws"), conv.timing_for("os")) == ("matrix_conv", "matrix_conv_os")
    with pytest.raises(SpecError, match="unknown dataflow 'is'; known: ws, os"):
        gemm.timing_for("is")


@pytest.mark.parametrize("old,new,message", [
    ('target_max = { "gemm.k" = "" }', 'target_max = { "gemm.q" = "" }',
     r"\[dataflow.os\] target_max key 'gemm.q' names no instruction field"),
    ('matrix_conv = "matrix_conv_os" }', 'matrix_conv = "matrix_conv_xs" }',
     r"'conv': its \[dataflow\] timing rule 'matrix_conv_xs' is not in \[timing\]"),
])
def test_a_wrong_dataflow_entry_is_a_spec_error(tmp_path, old, new, message):
    text = SPEC_PATH.read_text()
    assert old in text
    path = tmp_path / "npu_isa.toml"
    path.write_text(text.replace(old, new))
    with pytest.raises(SpecError, match=message):
        load_spec(path)
