"""The file protocol: examples/conformance_npusim_sim.py drives `npusim sim` as a subprocess
(program.bin + inputs in, signature.txt out) and passes; a simulator writing a wrong signature
fails with the word diff."""

import sys
from pathlib import Path

from npusim.conformance.registry import load_dut
from npusim.conformance.plugins.external import ExternalDut
from npusim.conformance.runner import run
from npusim.conformance.suite import select, suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conformance_npusim_sim.py"


def test_example_plugin_drives_npusim_sim_through_files():
    entries = select(suite("npu-edge"), "load/pad_top-ibuf,vrequant/ties-shift-1")
    result = run(entries, load_dut(str(EXAMPLE)), "npu-edge", jobs=2)
    assert result.count("passed") == 2, result.table()


def test_a_simulator_that_writes_zeros_fails_with_the_diff(tmp_path):
    script = ("import json; t = json.load(open('test.json')); "
              "open('signature.txt', 'w').write('00000000\\n' * (t['sig_bytes'] // 4))")
    dut = ExternalDut(command=lambda d: [sys.executable, "-c", script])
    result = run(select(suite("npu-edge"), "vadd/len-lanes"), dut, "npu-edge")
    (o,) = result.failures
    assert o.words[0].got == 0 and o.words[0].mnemonic == "vadd"
