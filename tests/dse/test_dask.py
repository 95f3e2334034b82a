"""Evaluation on a real Dask cluster on localhost (`dask scheduler` and two `dask worker`s):
the same table as a local run, points spread over both workers, and a worker killed mid-study
has its point re-run on the other."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from npusim import dse

from dse_helpers import SMALL_GRID, assert_same_table, cli_env, finished, write_space

DASK = Path(sys.executable).with_name("dask")
pytest.importorskip("distributed")


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two single-threaded workers (no nanny: a SIGKILL ends a worker)."""
    if not DASK.exists():
        pytest.skip("the dask command is not installed beside this Python")
    info = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", info], env=cli_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        t0 = time.monotonic()
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() - t0 < 60, "the dask scheduler did not start"
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        for _ in range(2):
            procs.append(subprocess.Popen(
                [DASK, "worker", address, "--nthreads", "1", "--nworkers", "1", "--no-nanny",
                 "--no-dashboard"], env=cli_env(), stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        from distributed import Client
        with Client(address, timeout=30) as c:
            c.wait_for_workers(2, timeout=60)
        yield address, procs[1:]
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.kill()
            p.wait(timeout=30)


def test_a_study_on_dask_equals_a_local_run_and_survives_a_killed_worker(tmp_path, cluster):
    address, workers = cluster
    path = write_space(tmp_path, SMALL_GRID.format(name="on-dask"))
    space = dse.load_space(path)
    dse.run_study(space, storage=tmp_path / "local.db", progress=False)
    local = dse.load(tmp_path / "local.db")

    def kill_one_worker_once_points_flow():
        db = tmp_path / "dask.db"
        t0 = time.monotonic()
        while finished(db) < 3 and time.monotonic() - t0 < 60:
            time.sleep(0.02)
        os.kill(workers[0].pid, signal.SIGKILL)
    killer = threading.Thread(target=kill_one_worker_once_points_flow)
    killer.start()
    summary = dse.run_study(space, storage=tmp_path / "dask.db", dask=address, progress=False)
    killer.join()
    assert workers[0].poll() == -signal.SIGKILL
    on_dask = dse.load(tmp_path / "dask.db")
    assert summary["finished"] == summary["points"] == len(on_dask) == 24
    assert (on_dask["status"] == "ok").all()
    assert_same_table(on_dask, local)
    hosts = {w.rsplit(":", 1)[1] for w in on_dask["worker"]}
    assert str(workers[1].pid) in hosts  # the survivor finished the study
