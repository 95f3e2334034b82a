"""On-disk cache of the target-independent compile front half (import, passes, calibration,
quantization), keyed by the compiler's code, the model's content and every option that shapes
it, so compiling one model for a second Target skips it.

Where: `$NPUSIM_CACHE_DIR` if set (`off`, `none`, `0` or `false` turn the cache off), else
`$XDG_CACHE_HOME/npusim`, else `~/.cache/npusim`; entries live in its `front/` folder and
may be deleted at any time. An entry is a pickle of (its key, the value) behind a magic
header, its length and its CRC-32, with the arrays' data out of band after it (pickle protocol
5: stored and read back without a copy through the pickle's bytes): a truncated, corrupted
or foreign file (another key's, another version's) is ignored and rebuilt, never trusted. Like any build cache the folder is
the user's own; entries are written atomically (a temp file, then os.replace), so concurrent
compiles never read half a file. A zoo model's entry leaves out its float model (the float
reference's graph, which the back half never reads): it is rebuilt on first use
(compiler.build.rebuilt_source)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import struct
import zlib
from pathlib import Path
from typing import Callable

from isa.files import write_atomic

MAGIC = b"NPUSIM-FRONT-HALF\x03"
_HEAD = struct.Struct("<QI")  # body bytes, CRC-32 of the body (a 26 MB ResNet-50 entry checks
# in 0.03 s; SHA-256 took twice that, and guards against nothing more here)
# the body: the pickle's length and the out-of-band buffers' count, their lengths, the pickle,
# then each buffer from a 64-byte boundary of the file (so the arrays over them are aligned)
_COUNTS = struct.Struct("<QI")
_LENGTH = struct.Struct("<Q")
ALIGN = 64
OFF = ("off", "none", "0", "false")
_CODE: list = []  # the code fingerprint, computed once per process


def cache_dir() -> Path | None:
    """The cache folder, or None when NPUSIM_CACHE_DIR turns the cache off."""
    env = os.environ.get("NPUSIM_CACHE_DIR")
    if env is not None and env.strip():
        return None if env.strip().lower() in OFF else Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and xdg.strip() else Path.home() / ".cache"
    return base / "npusim"


def code_fingerprint() -> str:
    """SHA-256 of the compiler's and the ISA's sources, numpy's and Python's versions: a
    cached front half is only reused by the code (and float arithmetic) that built it."""
    if not _CODE:
        import numpy
        h = hashlib.sha256(f"{sys.version_info[:2]} numpy {numpy.__version__}".encode())
        root = Path(__file__).resolve().parent.parent
        for pkg in ("compiler", "isa"):
            for path in sorted((root / pkg).rglob("*")):
                if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                    h.update(str(path.relative_to(root)).encode() + b"\0")
                    h.update(path.read_bytes() + b"\0")
        _CODE.append(h.hexdigest())
    return _CODE[0]


def _digest(obj) -> str:
    return hashlib.sha256(pickle.dumps(obj, protocol=5)).hexdigest()


def model_fingerprint(model) -> str | None:
    """The model's content as a hash: a zoo model is its name (its content is the zoo code,
    in the code fingerprint), an ONNX file its bytes with its external data, a Graph or ModelProto its contents.
    None for anything else (not cached)."""
    from .ir.graph import Graph
    if isinstance(model, Graph):
        return "graph:" + _digest(model)
    if isinstance(model, (str, os.PathLike)):
        from . import zoo
        text = str(model)
        if text in zoo.MODELS:
            return "zoo:" + text
        if os.path.isfile(text):
            from .frontend.onnx_source import file_sha256
            try:
                return "file:" + file_sha256(Path(text))
            except OSError:  # an external data file is missing: not cached; the import says so
                return None
        return None
    if type(model).__name__ == "ModelProto":
        return "onnx:" + hashlib.sha256(model.SerializeToString()).hexdigest()
    return None


def option_fingerprint(value) -> str:
    """Options as text: plain values by JSON, arrays (calibration feeds) by content."""
    try:
        return json.dumps(value, sort_keys=True)
    except TypeError:
        return "pickle:" + _digest(value)


def key(kind: str, model, **options) -> str | None:
    """The entry name for `kind` of `model` under `options`, or None when not cacheable."""
    fp = model_fingerprint(model)
    if fp is None:
        return None
    try:
        opts = {k: option_fingerprint(v) for k, v in sorted(options.items())}
    except Exception:  # an option that cannot be fingerprinted (a lambda, a socket): no cache
        return None
    text = json.dumps({"kind": kind, "code": code_fingerprint(), "model": fp, "options": opts},
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _path(name: str) -> Path | None:
    root = cache_dir()
    return None if root is None else root / "front" / f"{name}.pkl"


def load(name: str):
    """The cached value, or None when missing or not a sound entry for `name`."""
    path = _path(name)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            data = bytearray(os.fstat(f.fileno()).st_size)  # writable: the arrays over it are
            if f.readinto(data) != len(data):
                return None
    except OSError:
        return None
    head = len(MAGIC) + _HEAD.size
    if len(data) < head + _COUNTS.size or not data.startswith(MAGIC):
        return None
    size, crc = _HEAD.unpack_from(data, len(MAGIC))
    body = memoryview(data)[head:]
    if len(body) != size or zlib.crc32(body) != crc:
        return None
    try:
        pickled, count = _COUNTS.unpack_from(data, head)
        at = head + _COUNTS.size
        lengths = [_LENGTH.unpack_from(data, at + _LENGTH.size * i)[0] for i in range(count)]
        at += _LENGTH.size * count
        payload = memoryview(data)[at:at + pickled]
        at += pickled
        buffers = []
        for n in lengths:
            at = -(-at // ALIGN) * ALIGN
            buffers.append(memoryview(data)[at:at + n])
            at += n
        if at != len(data):
            return None
        stored_name, value = pickle.loads(payload, buffers=buffers)
    except Exception:  # a sound checksum over a body this code cannot read: rebuild
        return None
    return value if stored_name == name else None


def _entry(name: str, value) -> list:
    """The entry's bytes as pieces (the arrays' data not copied into a pickle)."""
    buffers = []
    pickled = pickle.dumps((name, value), protocol=5, buffer_callback=buffers.append)
    views = [b.raw() for b in buffers]
    body = [_COUNTS.pack(len(pickled), len(views)),
            b"".join(_LENGTH.pack(v.nbytes) for v in views), pickled]
    at = len(MAGIC) + _HEAD.size + sum(len(p) for p in body)
    for v in views:
        pad = -at % ALIGN
        body += [bytes(pad), v]
        at += pad + v.nbytes
    crc = 0
    for piece in body:
        crc = zlib.crc32(piece, crc)
    return [MAGIC, _HEAD.pack(at - len(MAGIC) - _HEAD.size, crc)] + body


def store(name: str, value) -> None:
    """Write the entry atomically; a cache that cannot be written is skipped silently."""
    path = _path(name)
    if path is None:
        return
    try:
        pieces = _entry(name, value)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, pieces)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, BufferError):
        return


def cached(kind: str, model, compute: Callable[[], object], *, stored=None, restored=None,
           **options):
    """compute() unless an entry for (kind, model, options) exists; stores a fresh result.
    Each call returns its own copy (a loaded one, or the computed one, already pickled).
    stored(value) -> what the entry keeps of a computed value (default: all of it), and
    restored(kept) -> the value again, for a loaded entry (what was left out rebuilt lazily)."""
    name = key(kind, model, **options) if cache_dir() is not None else None
    if name is None:
        return compute()
    kept = load(name)
    if kept is not None:
        return restored(kept) if restored is not None else kept
    value = compute()
    store(name, stored(value) if stored is not None else value)
    return value
