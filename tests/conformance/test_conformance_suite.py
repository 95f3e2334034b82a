"""The conformance suite itself: its size, names, coverage, and its independence from the
simulator (expected signatures come from isa.semantics through the reference machine)."""

import ast
from pathlib import Path

import numpy as np
import pytest

from isa.spec import load_spec
from isa.target import Target
from npusim.conformance import coverage
from npusim.conformance.case import Builder, GeneratorError
from npusim.conformance.reference import expected
from npusim.conformance.suite import dropped, select, suite

PKG = Path(__file__).resolve().parents[2] / "npusim" / "conformance"


def test_at_least_300_tests_on_npu_edge_with_unique_names():
    entries = suite("npu-edge")
    assert len(entries) >= 300
    assert len({e.name for e in entries}) == len(entries)
    assert dropped("npu-edge") == []


@pytest.mark.parametrize("target", ["npu-edge", "npu-edge -depthwise-mode=1"])
def test_every_instruction_and_enum_value_is_covered_on_npu_edge(target):
    """Every bin; every instruction but dwconv, which runs only on an array with the
    depthwise mode (there its field and semantic corners are all covered too)."""
    entries = suite(target)
    rep = coverage.report(set().union(*(e.expected.hits for e in entries)),
                          Target.create(target))
    assert rep.of("op") == 1.0 and rep.of("enum") == 1.0
    assert rep.uncovered == []
    executed = {m for e in entries for m in
                {i.mnemonic for c in range(e.test.num_cores) for i in e.test.program.instructions(c)}}
    mode = Target.create(target).depthwise_mode
    assert executed == set(load_spec().by_mnemonic) - (set() if mode else {"dwconv"})


def test_directed_corners_are_in_the_suite():
    hits = set().union(*(e.expected.hits for e in suite("npu-edge")))
    for b in ["vrequant|semantic:result|tie_negative", "vshr|semantic:result|tie",
              "load|semantic:result|dirty_pad", "load|semantic:result|planes",
              "gemm|semantic:result|wrap", "gemm|flag:acc|1", "conv|semantic:result|pad_right",
              "gbarrier|semantic:result|multi_core", "load|pad:pad_bottom|max",
              "gemm|count:k|max", "load|dram:dram|top"]:
        assert b in hits, b


def test_the_reference_machine_never_imports_the_simulator():
    """Expected results come from isa.semantics: no module that generates or checks a test
    imports npusim's model (exec, units, simulate, system, core)."""
    model = ("npusim.exec", "npusim.units", "npusim.simulate", "npusim.system", "npusim.core",
             "npusim.memory")
    for name in ("reference", "case", "coverage", "signature", "suite", "runner",
                 *[p.stem for p in PKG.glob("gen_*.py")]):
        tree = ast.parse((PKG / f"{name}.py").read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
            {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not [m for m in imported if m and m.startswith(model)], name


def test_expected_vrequant_tie_rounds_half_up():
    e = {x.name: x for x in suite("npu-edge")}["vrequant/ties-shift-1"]
    got = np.frombuffer(e.expected.signature, np.int8)[:6]
    # acc 1, 3, 5, -1, -3, -5 times 1 >> 1: 0.5 -> 1, 1.5 -> 2, 2.5 -> 3, -0.5 -> 0, -1.5 -> -1
    assert got.tolist() == [1, 2, 3, 0, -1, -2]


def test_a_test_that_reads_unwritten_sram_is_a_generator_error():
    b = Builder("bad/undefined", "npu-edge")
    b.emit("vcopy", dst=("obuf", 0), src0=("ibuf", 0), len=4)
    b.output("obuf", 0, 4, src="vector")
    with pytest.raises(GeneratorError, match="no instruction wrote"):
        expected(b.build())


def test_a_wait_before_its_signal_is_a_generator_error():
    b = Builder("bad/order", "npu-edge")
    b.emit("wait", unit="vector", sem=0)
    b.emit("signal", unit="dma0", sem=0)
    with pytest.raises(GeneratorError, match="before any signal"):
        expected(b.build())


def test_select_globs_substrings_and_lists():
    entries = suite("npu-edge")
    assert {e.name for e in select(entries, "vadd/len-*")} == {
        "vadd/len-1", "vadd/len-lanes"}
    assert len(select(entries, "ties")) >= 6
    assert len(select(entries, "vadd/len-1,vsub/len-1")) == 2


def test_npu_tiny_suite_builds_and_lists_what_it_drops():
    entries = suite("npu-tiny")
    assert len(entries) >= 300
    assert all(why for _, why in dropped("npu-tiny"))
