"""Saved runs: a Result written to a versioned JSON file (its trace as Parquet beside it) and
read back into the same Result, DataFrames and all, for reports and comparisons later."""

from __future__ import annotations

import io
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from npusim.flow.errors import FlowError

FORMAT = "npusim-run"
VERSION = 1          # bump when a field changes meaning; load() refuses any other version
TRACE_SUFFIX = ".trace.parquet"


class SavedRunError(FlowError):
    """A saved-run file that cannot be read back: missing, not JSON, not a saved run, written by
    a newer or an older npusim, or its trace file missing."""


def trace_path(path) -> Path:
    """Where save() puts the trace of the run saved at `path`: RUN.json -> RUN.trace.parquet."""
    p = Path(path)
    return p.with_name(p.stem + TRACE_SUFFIX if p.suffix == ".json" else p.name + TRACE_SUFFIX)


def provenance(command: list | None = None) -> dict:
    """Who made a run, when, with what: npusim version, git commit, Python, host, command."""
    from npusim import __version__
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
                                capture_output=True, text=True, timeout=5).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):  # no git, or not a checkout
        commit = None
    return {"npusim": __version__, "git_commit": commit,
            "python": platform.python_version(), "host": platform.node(),
            "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": " ".join(command if command is not None else _command())}


def _command() -> list:
    """This process's command line, `npusim ...` when it is the CLI (console script or -m)."""
    argv = list(sys.argv)
    if argv and Path(argv[0]).name in ("npusim", "__main__.py"):
        argv[0] = "npusim"
    return argv


def save(result, path, *, trace: bool | None = None, command: list | None = None) -> Path:
    """Write `result` to `path` (JSON): everything `npusim run --json` prints, the target, the
    per-layer table, the per-unit counters, the verdicts and provenance. trace (default: when
    the run kept one) also writes the trace as Parquet beside it (trace_path). -> path."""
    from isa.checks import target_name
    from isa.files import write_atomic
    path = Path(path)
    trace = result.keep_trace if trace is None else trace
    if trace and not result.keep_trace:
        raise FlowError("this run kept no trace to save; simulate(..., trace=True)")
    sim = result.sim
    doc = {"format": FORMAT, "version": VERSION, "provenance": provenance(command),
           "target": target_name(result.target), "name": result.name,
           "result": result.to_json(),
           "sim": {**{k: getattr(sim, k) for k in sim_fields()},
                   "races": [str(r) for r in sim.races]},
           "compile_s": result.compile_s,
           "verification": result.verification.as_dict() if result.verification else None,
           "backends": result.backends,
           "trace": None}
    if trace:
        frame = result.trace
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        write_atomic(trace_path(path), buf.getvalue())
        doc["trace"] = {"file": trace_path(path).name, "rows": len(frame)}
    write_atomic(path, json.dumps(doc, indent=1))
    return path


def sim_fields() -> list:
    """The SimResult fields a saved run keeps as they are (plain JSON values): every field but
    the Target (saved as its string), the final DRAM, the tensor map, the races (saved as
    text) and the trace (saved as Parquet)."""
    from dataclasses import fields
    from npusim.simulate import SimResult
    skip = {"target", "dram", "tensors", "races"}
    return [f.name for f in fields(SimResult) if f.name not in skip and not f.name.startswith("_")]


def load(path):
    """The Result saved at `path`, with its layers, units and (if saved) trace DataFrames; it
    has no inputs or outputs (feeds None), so it cannot be verified again, only reported.
    Raises SavedRunError for a file that is not a saved run of this version; its provenance
    is saved_provenance(path)."""
    from isa.target import Target
    from npusim.flow.checks import Verification
    from npusim.flow.result import Result
    from npusim.simulate import SimResult
    path = Path(path)
    doc = read_header(path)
    s = doc["sim"]
    target = Target.create(doc["target"])
    frame = None
    if doc.get("trace"):
        tpath = path.with_name(doc["trace"]["file"])
        if not tpath.is_file():
            raise SavedRunError(f"{path}: its trace {tpath} is missing; copy it beside the "
                                "file, or save the run again")
        import pandas as pd
        frame = pd.read_parquet(tpath)
    sim = SimResult(**{k: s[k] for k in sim_fields()}, target=target, dram=None,
                    races=list(s["races"]), _trace=frame)
    verdict = Verification(**doc["verification"]) if doc.get("verification") else None
    result = Result(doc["name"], target, sim, doc["result"]["layers"], doc["compile_s"],
                    feeds=None, verification=verdict, backends=doc.get("backends"),
                    keep_trace=frame is not None, host=doc["result"].get("host", []))
    return result


def read_header(path) -> dict:
    """The parsed saved-run document, refused in one line unless it is this format's VERSION."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise SavedRunError(f"cannot read saved run '{path}': {e.strerror or e}") from None
    try:
        doc = json.loads(text)
    except ValueError:
        raise SavedRunError(f"{path} is not a saved npusim run (not JSON); write one with "
                            "`npusim run ... --save RUN.json`") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SavedRunError(f"{path} is not a saved npusim run (no \"format\": \"{FORMAT}\"); "
                            "write one with `npusim run ... --save RUN.json`")
    version = doc.get("version")
    if not isinstance(version, int) or version != VERSION:
        age = "a newer" if isinstance(version, int) and version > VERSION else "an older"
        raise SavedRunError(f"{path} is a saved run of format version {version!r}, written by "
                            f"{age} npusim; this one reads version {VERSION}: "
                            f"run it again with this npusim (`npusim run ... --save`)")
    return doc


def saved_provenance(path) -> dict:
    """The provenance a saved run was written with (npusim, git commit, host, time, command)."""
    return read_header(path).get("provenance", {})


def is_saved_run(path) -> bool:
    """Whether `path` is a file that claims to be a saved run (of any version)."""
    p = Path(path)
    if not p.is_file() or os.path.getsize(p) == 0:
        return False
    try:
        with open(p, "rb") as f:
            head = f.read(200)
    except OSError:
        return False
    return FORMAT.encode() in head
