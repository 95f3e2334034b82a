"""Crash safety with real signals: a driver killed by SIGKILL mid-study resumes to the table an
uninterrupted run makes, evaluating no finished point twice; Ctrl-C stops cleanly."""

import os
import signal
import subprocess
import time

import pytest

from npusim import dse

from dse_helpers import SMALL_GRID, assert_same_table, cli_env, finished, npusim_cmd, write_space

TPE = """
[study]
name = "tpe-kill"
sampler = "tpe"
seed = 3
trials = 16
batch = 4
[workloads]
models = ["small_cnn"]
resolution = 16
[space]
array = ["4x4", "8x8", "16x16"]
dram-bw = { low = 4, high = 64, log = true }
vector-lanes = { low = 4, high = 32, step = 4 }
[objectives]
minimize = ["latency_ms", "energy_uj"]
"""


def _interruptible() -> None:
    # a foreground process: Ctrl-C reaches it even when the test runs in a background job,
    # whose SIGINT is ignored and would be inherited (Python keeps an ignored SIGINT ignored)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(space, db, *extra):
    return subprocess.Popen(npusim_cmd("dse", "run", space, "--storage", db, "--no-progress",
                                       *extra),
                            env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=_interruptible)


def kill_after(proc, db, n, sig=signal.SIGKILL, timeout=120) -> int:
    """Signal the driver (and its worker processes) once n points are committed."""
    t0 = time.monotonic()
    while finished(db) < n:
        if proc.poll() is not None:
            pytest.fail(f"the driver ended before {n} points: {proc.stderr.read()}")
        if time.monotonic() - t0 > timeout:
            proc.kill()
            pytest.fail("no progress")
        time.sleep(0.02)
    if sig == signal.SIGKILL:
        os.killpg(proc.pid, sig)  # the whole machine goes: driver and workers
    else:
        os.kill(proc.pid, sig)
    proc.wait(timeout=60)
    return finished(db)


def records(db, name):
    df = dse.load(db, name)
    return {r["trial"]: (r["worker"], r["wall_s"]) for _, r in df.iterrows()}


@pytest.mark.parametrize("text, name, jobs", [(SMALL_GRID.format(name="grid-kill"), "grid-kill", 1),
                                              (TPE, "tpe-kill", 2)])
def test_sigkill_mid_study_then_rerun_equals_an_uninterrupted_run(tmp_path, text, name, jobs):
    path = write_space(tmp_path, text)
    space = dse.load_space(path)
    total = space.size()
    dse.run_study(space, storage=tmp_path / "whole.db", progress=False)
    whole = dse.load(tmp_path / "whole.db")

    db = tmp_path / "killed.db"
    proc = start(path, db, "--jobs", jobs)
    at_kill = kill_after(proc, db, 4)
    assert proc.returncode == -signal.SIGKILL
    assert 4 <= at_kill < total, "the study finished before the kill; make it longer"
    before = records(db, name)

    res = subprocess.run(npusim_cmd("dse", "run", path, "--storage", db, "--no-progress",
                                    "--json", "--jobs", jobs),
                         env=cli_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    import json
    summary = json.loads(res.stdout)
    assert summary["finished"] == total
    assert summary["evaluated"] == total - len(before)  # nothing finished ran again
    after = records(db, name)
    assert {n: after[n] for n in before} == before      # the finished records are untouched
    resumed = dse.load(db, name)
    assert len(resumed) == total and resumed["trial"].tolist() == list(range(total))
    assert_same_table(resumed, whole)


def test_ctrl_c_stops_cleanly_with_everything_finished_saved(tmp_path):
    path = write_space(tmp_path, SMALL_GRID.format(name="ctrl-c"))
    db = tmp_path / "c.db"
    proc = start(path, db)
    kill_after(proc, db, 3, sig=signal.SIGINT)
    err = proc.stderr.read()
    assert proc.returncode == 130
    assert "npusim: interrupted:" in err and "run the same command again to resume" in err
    assert "Traceback" not in err
    saved = finished(db)
    assert saved >= 3 and len(dse.load(db, "ctrl-c")) == saved
    summary = dse.run_study(dse.load_space(path), storage=db, progress=False)
    assert summary["finished"] == 24 and summary["evaluated"] == 24 - saved


def _half_asked(space, db, number: int, total: int) -> None:
    """What a driver killed inside study.ask() leaves: trial `number` created (its sampler's
    before_trial run) with only its first parameter drawn."""
    from npusim.dse import samplers
    from npusim.dse.storage import open_study
    study = open_study(space, db)
    study.sampler = samplers.make_sampler(space, number, total)
    trial = study.ask()
    name, dist = next(iter(samplers.distributions(space).items()))
    trial._suggest(name, dist)


@pytest.mark.parametrize("text, name, first", [(SMALL_GRID.format(name="half"), "half", 0),
                                               (TPE, "tpe-kill", 8)])
def test_a_point_killed_while_being_asked_gets_the_rest_of_its_draw(tmp_path, text, name, first):
    space = dse.load_space(write_space(tmp_path, text))
    total = space.size() if space.sampler == "grid" else 12
    dse.run_study(space, storage=tmp_path / "whole.db", trials=total, progress=False)
    db = tmp_path / "half.db"
    if first:
        dse.run_study(space, storage=db, trials=first, progress=False)
    _half_asked(space, db, first, total)
    summary = dse.run_study(space, storage=db, trials=total, progress=False)
    assert summary["resumed"] == 1 and summary["finished"] == total
    assert_same_table(dse.load(db, name), dse.load(tmp_path / "whole.db", name))
