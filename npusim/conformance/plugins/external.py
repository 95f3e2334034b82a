"""A DUT driven through files, for simulators outside this code base: per test a directory with
the program and its inputs goes in, a signature file comes out.

The directory the runner writes (the file protocol, docs/conformance.md):
    program.bin        the program container (isa.asm.Program: words per core, .tensor table)
    inputs/NAME.npy    each input tensor (the SIG canary fill included), at its .tensor address
    dram.bin           the same inputs as one DRAM image, bytes 0 .. one past the last input
    test.json          name, target, sig_addr, sig_bytes, tensors {name: dram, shape, dtype}
The DUT's command must write, in that directory:
    signature.txt      the sig_bytes bytes at sig_addr as 32-bit little-endian hex words, one
                       a line (npusim.conformance.signature)
    cycles.json        optional: {"cycles": N, "trace": [[core, unit, index, start, end], ...]}
A command that exits non-zero fails the test with its stderr."""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from npusim.conformance import signature
from npusim.conformance.dut import Dut, DutResult


def write_test_dir(test, directory: Path) -> Path:
    """The protocol's input files of `test` in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    test.program.save(directory / "program.bin")
    (directory / "inputs").mkdir(exist_ok=True)
    end = max(test.program.tensors[n].dram + test.program.tensors[n].nbytes for n in test.inputs)
    image = np.zeros(end, np.uint8)
    for name, array in test.inputs.items():
        decl = test.program.tensors[name]
        data = np.ascontiguousarray(array).astype(decl.dtype).reshape(decl.shape)
        np.save(directory / "inputs" / f"{name}.npy", data)
        raw = data.astype(np.dtype(decl.dtype).newbyteorder("<")).reshape(-1).view(np.uint8)
        image[decl.dram:decl.dram + raw.size] = raw
    (directory / "dram.bin").write_bytes(image.tobytes())
    (directory / "test.json").write_text(json.dumps({
        "name": test.name, "target": test.target, "sig_addr": test.sig_addr,
        "sig_bytes": test.sig_bytes, "inputs": sorted(test.inputs),
        "tensors": {n: d.to_json() for n, d in test.program.tensors.items()}}, indent=1))
    return directory


class ExternalDut(Dut):
    """Runs `command(test_dir)` (an argv list) per test in a fresh directory; subclasses set
    `command` (or pass it), and may set `reports_cycles` if their simulator writes cycles.json."""

    name = "external"
    timeout_s = 600

    def __init__(self, command=None, keep: Path | None = None):
        if command is not None:
            self.command = command
        self.keep = keep

    def command(self, test_dir: Path) -> list[str]:
        raise NotImplementedError("set ExternalDut.command(test_dir) -> argv")

    def run(self, test) -> DutResult:
        wall = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="npusim-conf-") as tmp:
            d = write_test_dir(test, Path(self.keep or tmp) / test.name.replace("/", "__"))
            proc = subprocess.run(self.command(d), cwd=d, capture_output=True, text=True,
                                  timeout=self.timeout_s)
            if proc.returncode != 0:
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
                return DutResult(error=f"DUT command exited {proc.returncode}: "
                                       f"{' | '.join(tail)}", wall_s=time.perf_counter() - wall)
            try:
                sig = signature.read(d / "signature.txt")
            except signature.SignatureError as e:
                return DutResult(error=str(e), wall_s=time.perf_counter() - wall)
            cycles, trace = None, []
            if (d / "cycles.json").exists():
                c = json.loads((d / "cycles.json").read_text())
                cycles, trace = c.get("cycles"), [tuple(r) for r in c.get("trace", [])]
        return DutResult(sig, cycles, trace, wall_s=time.perf_counter() - wall)
