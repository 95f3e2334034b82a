"""Example conformance DUT plugin: an outside simulator driven through files.

Here the "outside simulator" is `npusim sim` run as a subprocess, which knows nothing of the
conformance suite: the plugin turns the suite's test directory (program.bin, inputs/NAME.npy,
test.json; see npusim/conformance/plugins/external.py) into its command line, and its --output
of the SIG tensor into signature.txt. Wire in your own simulator by changing `command`:

    npusim conformance run --dut examples/conformance_npusim_sim.py --only 'load/*' --jobs 2
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from npusim.conformance.plugins.external import ExternalDut

# The adapter step run in the test directory after the simulator: SIG as a .npy -> hex words.
TO_SIGNATURE = ("import numpy, pathlib; from npusim.conformance import signature; "
                "signature.write('signature.txt', numpy.load('sig.npy').tobytes())")


class NpusimSimDut(ExternalDut):
    name = "npusim-sim-subprocess"

    def command(self, test_dir: Path) -> list[str]:
        test = json.loads((test_dir / "test.json").read_text())
        inputs = [f"--input={n}=inputs/{n}.npy" for n in test["inputs"]]
        sim = [sys.executable, "-m", "npusim", "sim", "program.bin", *inputs,
               "--output=SIG=sig.npy", "--races=off"]
        # one shell-free argv: run the simulator, then the adapter, in one Python process each
        return [sys.executable, "-c",
                "import subprocess, sys; r = subprocess.run(sys.argv[1:]); "
                f"sys.exit(r.returncode) if r.returncode else exec({TO_SIGNATURE!r})", *sim]
