"""nvcc and the CUDA driver: find them, compile emitted CUDA to PTX (every kernel, any host)
or to a shared library (hosts with a GPU), and count the devices through libcuda."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

from ...errors import CompilerError

NVCC_PATHS = ("nvcc", "/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc")


def find_nvcc(nvcc: str | None = None) -> str | None:
    for name in ([nvcc] if nvcc else NVCC_PATHS):
        path = shutil.which(name)
        if path:
            return path
    return None


def device_count() -> int:
    """CUDA devices the driver sees; 0 without a driver (no libcuda) or without a GPU."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def _nvcc(args: list, what: str, nvcc: str | None) -> None:
    path = find_nvcc(nvcc)
    if path is None:
        raise CompilerError(f"nvcc not found (looked for {', '.join(NVCC_PATHS)}); install the "
                            "CUDA toolkit or pass nvcc='/path/to/nvcc'")
    proc = subprocess.run([path, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise CompilerError(f"nvcc failed to build {what} (exit {proc.returncode}): "
                            f"{' '.join([path, *args])}\n{tail}")


def _build(source: Path, name: str, args: list, nvcc: str | None) -> Path:
    # one source serves every gpu tag (a100, h100 ... emit the same CUDA), so outputs carry
    # the arch in their name; nvcc writes a private name that is renamed into place, so a
    # process sharing the cache (a test worker) never reads a half-written or other-arch
    # file, and a library another process has loaded is replaced, not overwritten
    out = source.with_name(name)
    tmp = out.with_name(f"{out.stem}.{os.getpid()}{out.suffix}")
    _nvcc([*args, "-o", str(tmp), str(source)], str(source), nvcc)
    tmp.replace(out)
    return out


def compile_ptx(source: Path, arch: str, nvcc: str | None = None) -> Path:
    """nvcc -ptx: proves every kernel compiles for `arch` (no GPU needed)."""
    return _build(source, f"{source.stem}.{arch}.ptx", ["-ptx", f"-arch={arch}"], nvcc)


def compile_library(source: Path, arch: str, nvcc: str | None = None) -> Path:
    return _build(source, f"libmodel_cuda.{arch}.so",
                  ["-O3", f"-arch={arch}", "-shared", "-Xcompiler", "-fPIC"], nvcc)


def load(lib: Path) -> ctypes.CDLL:
    dll = ctypes.CDLL(str(lib))
    dll.npu_gpu_bench.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                  ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    dll.npu_gpu_bench.restype = ctypes.c_int
    return dll
