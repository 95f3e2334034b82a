"""compiler.parallel.over_rows: row blocks over the cores cover every row once, in blocks."""

import os
import signal
import threading

import numpy as np
import pytest

from compiler import parallel


def test_blocks_partition_the_rows(monkeypatch):
    monkeypatch.setattr(parallel, "usable_cores", lambda: 3)
    seen = []
    parallel.over_rows(10, parallel.MIN_BLOCK // 2, lambda lo, hi: seen.append((lo, hi)))
    assert sorted(seen) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]  # 5 blocks of 2 rows
    seen.clear()  # too few elements for a second block: one call, inline
    parallel.over_rows(10, 1, lambda lo, hi: seen.append((lo, hi)))
    assert seen == [(0, 10)]


def test_blocks_compute_what_one_call_does(monkeypatch):
    monkeypatch.setattr(parallel, "usable_cores", lambda: 4)
    w = np.random.default_rng(0).standard_normal((64, 1 << 13)).astype(np.float32)
    s = np.linspace(0.5, 1.5, 64)[:, None]
    out = np.empty_like(w)
    parallel.over_rows(64, w.shape[1] * 32, lambda lo, hi: np.multiply(
        w[lo:hi], s[lo:hi], dtype=np.float64, out=out[lo:hi], casting="same_kind"))
    assert np.array_equal(out, (w.astype(np.float64) * s).astype(np.float32))


def test_the_caller_does_every_block_when_no_helper_runs(monkeypatch):
    """A helper the OS does not run (a loaded machine) leaves its blocks to the caller."""
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    from concurrent.futures import ThreadPoolExecutor
    gate, pool = threading.Event(), ThreadPoolExecutor(1)
    monkeypatch.setattr(parallel, "_POOL", {os.getpid(): pool})
    pool.submit(gate.wait)  # the one helper is busy elsewhere
    me, seen = threading.get_ident(), []
    try:
        parallel.over_rows(8, parallel.MIN_BLOCK, lambda lo, hi: seen.append(
            (lo, threading.get_ident() == me)))
    finally:
        gate.set()
    assert seen == [(k, True) for k in range(8)]


def test_an_error_in_a_block_is_raised(monkeypatch):
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)

    def fail(lo, hi):
        if lo == 5:
            raise ValueError(f"block {lo}")
    with pytest.raises(ValueError, match="block 5"):
        parallel.over_rows(10, parallel.MIN_BLOCK, fail)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_its_own_pool(monkeypatch):
    """A pool made before a fork has no threads in the child: the child must not use it."""
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    parallel.over_rows(2, parallel.MIN_BLOCK, lambda lo, hi: None)  # the parent's pool
    pid = os.fork()
    if pid == 0:  # the child: would hang on the parent's pool (the alarm ends it then)
        signal.alarm(60)
        seen = []
        parallel.over_rows(2, parallel.MIN_BLOCK, lambda lo, hi: seen.append(lo))
        os._exit(0 if sorted(seen) == [0, 1] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
