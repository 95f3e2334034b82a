"""The system C compiler: flags from the Target, one shared library per distinct source
(cached by content hash)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from ...errors import CompilerError

COMPILERS = ("cc", "gcc", "clang")
CACHE = Path(tempfile.gettempdir()) / "npusim-cpu-cache"


def find_cc(cc: str | None = None) -> str:
    for name in ([cc] if cc else COMPILERS):
        path = shutil.which(name)
        if path:
            return path
    raise CompilerError(f"no C compiler found (looked for {cc or ', '.join(COMPILERS)}); "
                        "install gcc or clang, or pass cc='/path/to/compiler'")


def flags(target) -> list:
    # Completely peeling the 3-trip kernel-tap loops around vectorized bodies costs GCC 20x
    # the compile time (resnet18: 40 s instead of 2 s) for no measured speed: allow 2 trips.
    out = ["-O3", f"-march={target.march}", "--param", "max-completely-peel-times=2",
           "-std=c11", "-ffp-contract=fast", "-shared", "-fPIC"]
    if target.openmp:
        out.append("-fopenmp")
    return out


def build_library(source: str, target, cc: str | None = None) -> tuple:
    """Compile `source` (cached); -> (library, compile seconds (0.0 when cached), command)."""
    return build_shared([find_cc(cc), *flags(target)], source, CACHE, ".c", ("-lm",),
                        "the C compiler")


def build_shared(base: list, source: str, cache: Path, suffix: str, libs: tuple = (),
                 what: str = "the compiler") -> tuple:
    """`base` (compiler and flags) on `source`, once per distinct pair (cached by content
    hash under `cache`); -> (library, compile seconds (0.0 when cached), command)."""
    key = hashlib.sha256("\0".join([*base, source]).encode()).hexdigest()[:20]
    out = cache / key
    lib = out / "libmodel.so"
    src = out / f"model{suffix}"
    cmd = [*base, "-o", str(lib), str(src), *libs]
    if lib.exists():
        return lib, 0.0, cmd
    out.mkdir(parents=True, exist_ok=True)
    # private names, then renames: concurrent builds of one source (test workers) never see
    # each other's half-written files
    tmp_src, tmp = out / f"model.{os.getpid()}{suffix}", out / f"libmodel.{os.getpid()}.so"
    tmp_src.write_text(source)
    tmp_src.replace(src)
    t0 = time.perf_counter()
    proc = subprocess.run([*base, "-o", str(tmp), str(src), *libs], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise CompilerError(f"{what} failed on {src} (exit {proc.returncode}): "
                            f"{' '.join(cmd)}\n{tail}")
    tmp.replace(lib)
    return lib, time.perf_counter() - t0, cmd
