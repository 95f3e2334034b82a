"""Provenance of a point: the npusim version, the git commit of the checkout it ran from, and
each workload's content hash, so any row can be re-run and checked."""

from __future__ import annotations

import hashlib
import subprocess
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=None)
def npusim_version() -> str:
    import npusim
    return npusim.__version__


@lru_cache(maxsize=None)
def git_commit() -> str | None:
    """HEAD of the checkout this npusim is imported from (+ '-dirty' with uncommitted
    changes to tracked files), or None outside a checkout."""
    if not (ROOT / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


@lru_cache(maxsize=None)
def workload_hash(model: str, resolution: int | None) -> str:
    """SHA-256 of what defines the workload: an ONNX file's bytes; for a zoo model, its name,
    resolution and the zoo's source (its weights are generated from a fixed seed there)."""
    h = hashlib.sha256()
    path = Path(model)
    if path.is_file():
        h.update(b"file\0" + path.read_bytes())
    else:
        from npusim.flow import zoo_models
        h.update(f"zoo\0{model}\0{resolution}\0".encode())
        for src in sorted(Path(zoo_models()[model]["source"]).parent.glob("*.py")):
            h.update(src.name.encode() + b"\0" + src.read_bytes())
    return h.hexdigest()
