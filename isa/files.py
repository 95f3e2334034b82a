"""Atomic file writes: the data goes to a temporary file beside the target, then os.replace
puts it under the final name, so an interrupted write (Ctrl-C, a full disk) never leaves a
truncated file there, and a reader sees the old file or the new one."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def write_atomic(path: str | os.PathLike, data: bytes | str | list) -> None:
    """Write `data` (str as UTF-8; a list: its bytes-like pieces one after another, never
    joined in memory) to `path` atomically; raises OSError like open() would."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # os.open with 0o666 so the file gets the permissions open() would give (umask applies)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, list):
                f.writelines(data)
            else:
                f.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
