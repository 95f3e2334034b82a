"""The checker on its own (no simulator): it reports cycle and data divergences, first first."""

import pytest

from isa.codec import instruction
from rtl_tests.tb.checker import Checker


def test_agreeing_instructions_leave_no_mismatch(tmp_path):
    c = Checker("matrix", "npu-tiny")
    gemm = instruction("gemm", m=2, k=3, n=4)
    assert c.cycles(gemm, 13, 13) and c.data(gemm, "abuf@0", [1, -2, 3], [1, -2, 3])
    c.assert_clean()
    c.save(tmp_path / "rows.csv")
    c.save(tmp_path / "rows.csv")  # appends, header once
    assert (tmp_path / "rows.csv").read_text().splitlines() == [
        "unit,target,class,mnemonic,model_cycles,rtl_cycles,diff",
        "matrix,npu-tiny,matrix,gemm,13,13,0", "matrix,npu-tiny,matrix,gemm,13,13,0"]


def test_cycle_and_data_mismatches_are_reported_in_order():
    c = Checker("vector")
    vadd = instruction("vadd", len=3)
    vshr = instruction("vshr", len=2, shift=1)
    assert not c.cycles(vadd, 5, 6)
    c.cycles(vshr, 5, 5)
    assert not c.data(vshr, "obuf@10", [3, -2, 7, 7], [3, -3, 7, 8])
    assert [(m.index, m.kind) for m in c.mismatches] == [(0, "cycles"), (1, "data")]
    assert "model 5 cycles, RTL 6 (diff +1)" in str(c.mismatches[0])
    assert "obuf@10[1] model -2 RTL -3 (2 of 4 elements differ)" in str(c.mismatches[1])
    with pytest.raises(AssertionError, match=r"2 mismatch\(es\) in 2 instructions; first: #0 cycles"):
        c.assert_clean()
