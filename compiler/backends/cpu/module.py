"""CpuModule: the model's C built into a shared library by the system compiler, run through
ctypes (clike.host.HostModule), and saved with its sources."""

from __future__ import annotations

import json
from pathlib import Path

from isa.files import write_atomic

from ..clike.host import HostModule
from ..clike.program import manifest


class CpuModule(HostModule):
    def save(self, out_dir) -> Path:
        """Write model.c, libmodel.so, constants.bin and manifest.json into `out_dir`."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        write_atomic(out / "model.c", self.source)
        write_atomic(out / "libmodel.so", Path(self.library).read_bytes())
        write_atomic(out / "constants.bin", self._consts.tobytes())
        info = manifest(self.program, self.target, self.command)
        info["entry"] = "void npu_model_run(uint8_t *arena, const uint8_t *consts)"
        write_atomic(out / "manifest.json", json.dumps(info, indent=1))
        return out
