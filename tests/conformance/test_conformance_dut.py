"""The model DUT passes the whole suite (signatures and, as `timing`, every cycle rule); each
mutant of the model fails it with a diff that names the instruction it breaks."""

import pytest

from conformance_mutants import MUTANTS, RequantHalfDown, WaitDoesNotBlock
from npusim.conformance.dut import DutError
from npusim.conformance.registry import load_dut
from npusim.conformance.runner import run
from npusim.conformance.suite import select, suite


@pytest.fixture(scope="module")
def edge():
    return suite("npu-edge")


def test_model_passes_the_whole_suite_with_timing(edge):
    result = run(edge, load_dut("timing"), "npu-edge", timing=True)
    assert result.failures == [] and result.count("passed") == len(edge)
    assert result.coverage.fraction == 1.0


def test_two_jobs_give_the_same_outcomes(edge):
    some = select(edge, "vrequant/*,load/pad*")
    one = run(some, load_dut("model"), "npu-edge")
    two = run(some, load_dut("model"), "npu-edge", jobs=2)
    assert [(o.name, o.status) for o in one.outcomes] == [(o.name, o.status) for o in two.outcomes]
    assert one.ok


@pytest.mark.parametrize("mutant", list(MUTANTS), ids=lambda m: m.name)
def test_every_mutant_fails_the_suite_naming_the_instruction(edge, mutant):
    names, timing = MUTANTS[mutant]
    result = run(edge, mutant(), "npu-edge", timing=timing)
    assert result.failures, f"{mutant.name} passed the suite"
    if timing:
        first = result.failures[0].timing[0]
        assert f"] {names} on vector" in first and "rule 'vector_elementwise'" in first, first
        return
    for o in result.failures:
        assert o.words and o.words[0].writer.startswith("[core"), o.message
    if names:
        wanted = (names,) if isinstance(names, str) else names
        blamed = {o.words[0].mnemonic for o in result.failures}
        assert blamed <= set(wanted), blamed


def test_a_wait_that_does_not_block_fails_the_ordering_tests(edge):
    result = run(select(edge, "sync/*"), WaitDoesNotBlock(), "npu-edge")
    failed = {o.name for o in result.failures}
    assert {"sync/wait-blocks-vector", "sync/wait-blocks-matrix", "sync/wait-blocks-dma",
            "sync/semaphore-counts"} <= failed
    by = {o.name: o for o in result.failures}
    assert by["sync/wait-blocks-vector"].words[0].mnemonic == "vcopy"
    assert by["sync/wait-blocks-matrix"].words[0].mnemonic == "gemm"


def test_requant_mutant_diff_shows_expected_and_got(edge):
    result = run(select(edge, "vrequant/ties-shift-1"), RequantHalfDown(), "npu-edge")
    (o,) = result.failures
    w = o.words[0]
    assert (f"{w.expected:08x}", f"{w.got:08x}") == ("00030201", "ff020100")
    assert "vrequant dst=obuf" in w.writer and "vrequant" in result.table()


def test_unknown_dut_is_a_clear_error():
    with pytest.raises(DutError, match="built-in"):
        load_dut("no_such_dut_module")
