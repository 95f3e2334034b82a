"""cocotb test of the rtl DUT: runs a batch of conformance tests on rtl/npu_core.v one after the
other and writes each one's signature bytes, cycles and trace (tb/conformance_dut.py)."""

from __future__ import annotations

import json

import cocotb
import numpy as np

from rtl_tests.tb.bench import plusarg
from rtl_tests.tb.core_bench import CoreBench


@cocotb.test()
async def run_conformance(dut):
    """Every test of +batch (JSON): load, run to done (or fault, or max_cycles), read back."""
    with open(plusarg("batch")) as f:
        batch = json.load(f)
    bench = await CoreBench.open(dut, batch["target"])
    size = bench.params["DRAM_BYTES"]
    results = {}
    for item in batch["tests"]:
        image = np.zeros(size, np.uint8)
        for addr, value in item["dram"]:
            image[addr] = value
        bench.load([int(w, 16) for w in item["words"]], image)
        monitor = await bench.execute(max_cycles=item["max_cycles"])
        if monitor.fault_cycle is not None:
            results[item["name"]] = {"error": f"the RTL core raised fault at cycle "
                                              f"{monitor.fault_cycle}"}
            continue
        if monitor.done_cycle is None:
            results[item["name"]] = {"error": f"the RTL core did not finish within "
                                              f"{item['max_cycles']} cycles"}
            continue
        sig = bench.dram.read(item["sig_addr"], item["sig_bytes"]).astype(np.uint8)
        results[item["name"]] = {"signature": sig.tobytes().hex(), "cycles": monitor.done_cycle,
                                 "trace": [[0, u, i, s, e] for u, i, s, e in monitor.rows]}
    with open(plusarg("results"), "w") as f:
        json.dump(results, f)
