"""CpuModule: the model's C built into a shared library by the system compiler, run through
ctypes (clike.host.HostModule), and saved with its sources."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..clike.host import HostModule
from ..clike.program import manifest


class CpuModule(HostModule):
    def save(self, out_dir) -> Path:
        """Write model.c, libmodel.so, constants.bin and manifest.json into `out_dir`."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "model.c").write_text(self.source)
        shutil.copyfile(self.library, out / "libmodel.so")
        self._consts.tofile(out / "constants.bin")
        info = manifest(self.program, self.target, self.command)
        info["entry"] = "void npu_model_run(uint8_t *arena, const uint8_t *consts)"
        (out / "manifest.json").write_text(json.dumps(info, indent=1))
        return out
