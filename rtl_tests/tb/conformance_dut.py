"""The conformance suite's `rtl` DUT: rtl/npu_core.v under cocotb and Icarus, at npu-tiny sizes.

The core is compiled once per Target (tb.core_runner.build_core) and one simulator process runs
a whole batch of tests (tb/conformance_cocotb.py): each test's words and DRAM inputs are written
through VPI, the core runs to `done`, and the signature region and the per-instruction trace
(tb.core_monitor) are read back. `npusim conformance run --dut rtl` finds it here
(npusim.conformance.registry): npusim never imports rtl_tests, rtl_tests uses npusim."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from npusim.conformance.dut import Dut, DutError, DutResult

from rtl_tests.runner import ROOT
from rtl_tests.tb import core_params, core_runner

MAX_CYCLES = 200_000  # a hung core stops here; a finished one ends the wait at `done`


class RtlDut(Dut):
    name = "rtl"
    reports_cycles = True
    default_target = "npu-tiny"
    batch = True  # one simulator process runs every test: --jobs does not split it

    def __init__(self):
        self.target = None
        self.params = None

    def build(self, target: str) -> None:
        if shutil.which("iverilog") is None or shutil.which("vvp") is None:
            raise DutError("the rtl DUT needs Icarus Verilog (iverilog, vvp); Debian: "
                           "apt-get install iverilog")
        core_params.core_target(target)  # TargetError unless one core with one DMA channel
        self.params = core_params.core_params(target)
        self.runner, self.out = core_runner.build_core(target)
        self.target = target

    def skip(self, test) -> str | None:
        if test.num_cores != 1:
            return f"the RTL core is one core; the test uses {test.num_cores}"
        if test.footprint > self.params["DRAM_BYTES"]:
            return (f"touches DRAM up to byte {test.footprint}, past the RTL core's "
                    f"{self.params['DRAM_BYTES']}-byte DRAM model")
        if test.instructions > self.params["IMEM_DEPTH"]:
            return f"{test.instructions} instructions, past IMEM_DEPTH={self.params['IMEM_DEPTH']}"
        return None

    def run(self, test) -> DutResult:
        return self.run_many([test])[0]

    def run_many(self, tests) -> list[DutResult]:
        if not tests:
            return []
        # a directory of its own: two runs (pytest workers, a CLI run) may share the build
        run_dir = Path(tempfile.mkdtemp(prefix="run-conformance-", dir=self.out))
        batch, results = run_dir / "batch.json", run_dir / "results.json"
        items = []
        for t in tests:
            image = np.zeros(self.params["DRAM_BYTES"], np.uint8)
            for name, array in t.inputs.items():
                decl = t.program.tensors[name]
                raw = np.ascontiguousarray(array).astype(
                    np.dtype(decl.dtype).newbyteorder("<")).reshape(-1).view(np.uint8)
                image[decl.dram:decl.dram + raw.size] = raw
            nz = np.flatnonzero(image)
            items.append({"name": t.name, "words": [f"{w:032x}" for w in t.program.cores[0]],
                          "dram": [[int(a), int(image[a])] for a in nz],
                          "sig_addr": t.sig_addr, "sig_bytes": t.sig_bytes,
                          "max_cycles": MAX_CYCLES})
        batch.write_text(json.dumps({"target": self.target, "tests": items}))
        env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                           os.environ.get("PYTHONPATH")]))}
        wall = time.perf_counter()
        try:
            self.runner.test(hdl_toplevel="npu_core",
                             test_module="rtl_tests.tb.conformance_cocotb",
                             testcase=["run_conformance"], build_dir=self.out, test_dir=run_dir,
                             extra_env=env, log_file=run_dir / "sim.log",
                             plusargs=[f"+target={self.target}", f"+batch={batch}",
                                       f"+results={results}"])
        except SystemExit:  # how the cocotb runner reports a failed cocotb test
            pass
        per_test = (time.perf_counter() - wall) / len(tests)
        got = json.loads(results.read_text()) if results.exists() else {}
        out = []
        for t in tests:
            r = got.get(t.name)
            if r is None:
                out.append(DutResult(error=f"the RTL simulation did not report this test; "
                                           f"log: {run_dir / 'sim.log'}", wall_s=per_test))
            elif r.get("error"):
                out.append(DutResult(error=r["error"], wall_s=per_test))
            else:
                out.append(DutResult(bytes.fromhex(r["signature"]), r["cycles"],
                                     [tuple(row) for row in r["trace"]], wall_s=per_test))
        if all(r.error is None for r in out):  # keep the logs of a run that went wrong
            shutil.rmtree(run_dir, ignore_errors=True)
        return out
