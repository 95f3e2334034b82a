"""Helpers the DSE tests share: writing a space file, running the CLI in a subprocess, and
comparing two studies' tables on what an evaluation determines."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# what differs between two runs of the same points: when and where they ran
VOLATILE = ["wall_s", "cpu_s", "worker"]

SMALL_GRID = """
[study]
name = "{name}"
base = "npu-edge"
sampler = "grid"
[workloads]
models = ["small_cnn"]
resolution = 16
[space]
array = ["4x4", "8x8", "16x16"]
dram-bw = [4, 8, 16, 32]
dma-engines = [1, 2]
[objectives]
minimize = ["latency_ms", "energy_uj"]
"""


def write_space(folder: Path, text: str, name: str = "space.toml") -> Path:
    path = Path(folder) / name
    path.write_text(text)
    return path


def cli_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def npusim_cmd(*args) -> list:
    return [sys.executable, "-m", "npusim", *map(str, args)]


def run_cli(*args, timeout=180) -> subprocess.CompletedProcess:
    return subprocess.run(npusim_cmd(*args), capture_output=True, text=True, env=cli_env(),
                          timeout=timeout, cwd=ROOT)


def comparable(df):
    """The table without the columns that record when/where a point ran, in trial order."""
    return df.drop(columns=VOLATILE).sort_values("trial").reset_index(drop=True)


def assert_same_table(a, b) -> None:
    """Two studies' tables agree on everything an evaluation determines."""
    import pandas.testing
    pandas.testing.assert_frame_equal(comparable(a), comparable(b), check_exact=True)


def finished(db) -> int:
    """Points committed so far, read the way another process would (state is final)."""
    if not os.path.exists(db):
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return con.execute("select count(*) from trials where state in "
                               "('COMPLETE', 'FAIL')").fetchone()[0]
    except sqlite3.OperationalError:  # tables not created yet
        return 0
