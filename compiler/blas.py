"""One BLAS thread for a block of numpy work on a busy machine, where numpy's OpenBLAS can be
reached."""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os

_API: list = []  # [(get, set) callables] or [None], found once


def _openblas():
    """(get_threads, set_threads) of the OpenBLAS numpy links, or None (another BLAS)."""
    if not _API:
        api = None
        try:
            import numpy
            libs = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
            for path in sorted(glob.glob(os.path.join(libs, "*openblas*"))):
                lib = ctypes.CDLL(path)
                for get, put in (("scipy_openblas_get_num_threads64_",
                                  "scipy_openblas_set_num_threads64_"),
                                 ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
                                 ("openblas_get_num_threads", "openblas_set_num_threads")):
                    if hasattr(lib, get) and hasattr(lib, put):
                        getter, setter = getattr(lib, get), getattr(lib, put)
                        getter.restype, setter.argtypes = ctypes.c_int, [ctypes.c_int]
                        api = (getter, setter)
                        break
                if api:
                    break
        except OSError:
            api = None
        _API.append(api)
    return _API[0]


def _busy() -> bool:
    """More runnable work than half the cores (the 1-minute load average): OpenBLAS's extra
    threads would spin against other processes instead of helping."""
    try:
        return os.getloadavg()[0] > (os.cpu_count() or 1) / 2
    except OSError:  # no load average on this platform
        return False


@contextlib.contextmanager
def single_threaded():
    """Run the block with one BLAS thread when the machine is busy, then restore the count.
    OpenBLAS splits a matmul's rows and columns between threads, never its sums, so results
    are bit-identical either way; what changes is speed where cores are shared (parallel
    compiles, a busy machine), where OpenBLAS's spinning threads made the calibration's
    convolutions up to 6x slower. On an idle machine its threads are kept."""
    api = _openblas()
    if api is None or not _busy():
        yield
        return
    get, put = api
    before = get()
    put(1)
    try:
        yield
    finally:
        put(before)
