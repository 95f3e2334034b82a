"""On-disk cache of the target-independent compile front half (import, passes, calibration,
quantization), keyed by the compiler's code, the model's content and every option that shapes
it, so compiling one model for a second Target skips it.

Where: `$NPUSIM_CACHE_DIR` if set (`off`, `none`, `0` or `false` turn the cache off), else
`$XDG_CACHE_HOME/npusim`, else `~/.cache/npusim`; entries live in its `front/` folder and
may be deleted at any time. An entry is a pickle of (its key, the value) behind a magic
header, its length and its checksum (_digest_of), with the arrays' data out of band after it
(pickle protocol 5: stored and read back without a copy through the pickle's bytes): a
truncated, corrupted or foreign file (another key's, another version's) is ignored and
rebuilt, never trusted. Like any build cache the folder is the user's own; entries are
written atomically (a temp file, then os.replace), so concurrent compiles never read half a
file, by a background thread (store) that a later load in the process waits for; the temp
file of a writer killed mid-write is removed by a later process's first store (sweep). A zoo
model's entry leaves out its float model (the float reference's graph, which the back half
never reads): it is rebuilt on first use (compiler.build.rebuilt_source)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import struct
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np

from isa.files import write_atomic

MAGIC = b"NPUSIM-FRONT-HALF\x04"
_HEAD = struct.Struct("<Q32s")  # body bytes, the body's checksum (_digest_of)
_PART = struct.Struct("<QQQI")  # one part's bytes and check values, under the SHA-256
_BLOCK = 512                     # bytes per block of an array buffer's weighted sum
# the body: the pickle's length and the out-of-band buffers' count, their lengths, the pickle,
# then each buffer from a 64-byte boundary of the file (so the arrays over them are aligned)
_COUNTS = struct.Struct("<QI")
_LENGTH = struct.Struct("<Q")
ALIGN = 64
OFF = ("off", "none", "0", "false")
_CODE: list = []  # the code fingerprint, computed once per process
_WRITERS: dict = {}  # pid -> (writer pool, writes in flight): see store()
_SWEPT: set = set()  # folders this process removed stale temp files from (sweep)
STALE_DEAD_S = 60.0          # a dead writer's temp file is removed past this age (seconds)
STALE_ANY_S = 24 * 3600.0    # and anyone's past this one


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
        h.update(sources_digest("compiler", "isa").encode())
        _CODE.append(h.hexdigest())
    return _CODE[0]


_SOURCES: dict = {}  # packages -> the digest of their sources, computed once per process


def sources_digest(*packages: str) -> str:
    """SHA-256 of these top-level packages' .py and .toml files (paths and bytes)."""
    if packages not in _SOURCES:
        h = hashlib.sha256()
        root = Path(__file__).resolve().parent.parent
        for pkg in packages:
            for path in sorted((root / pkg).rglob("*")):
                if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                    h.update(str(path.relative_to(root)).encode() + b"\0")
                    h.update(path.read_bytes() + b"\0")
        _SOURCES[packages] = h.hexdigest()
    return _SOURCES[packages]


def _digest(obj) -> str:
    return hashlib.sha256(pickle.dumps(obj, protocol=5)).hexdigest()


def model_fingerprint(model) -> str | None:
    """The model's content as a hash: a zoo model is its name (its content is the zoo code,
    in the code fingerprint), an ONNX file its bytes with its external data, a Graph or
    ModelProto its contents. None for anything else (not cached)."""
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
    _wait_for(path)
    try:
        with open(path, "rb") as f:
            # writable, as the arrays over it are; np.empty, not bytearray: no zero fill of
            # memory the read overwrites at once (13 ms of a 26 MB entry)
            data = memoryview(np.empty(os.fstat(f.fileno()).st_size, np.uint8))
            if f.readinto(data) != len(data):
                return None
    except OSError:
        return None
    head = len(MAGIC) + _HEAD.size
    if len(data) < head + _COUNTS.size or bytes(data[:len(MAGIC)]) != MAGIC:
        return None
    size, digest = _HEAD.unpack_from(data, len(MAGIC))
    if len(data) - head != size:
        return None
    try:
        parts = _parts(data, head)
        if parts is None or _digest_of(*parts) != digest:
            return None
        meta, _, buffers = parts
        payload = meta[-1]
        stored_name, value = pickle.loads(payload, buffers=buffers)
    except Exception:  # a sound checksum over a body this code cannot read: rebuild
        return None
    return value if stored_name == name else None


def _parts(data: memoryview, head: int):
    """(meta pieces, pads, buffers) of a body read back, cut where _entry joined them; None
    where its counts and lengths cannot describe this file (checked before it is trusted)."""
    pickled, count = _COUNTS.unpack_from(data, head)
    at = head + _COUNTS.size
    if at + _LENGTH.size * count + pickled > len(data):
        return None
    lengths = [_LENGTH.unpack_from(data, at + _LENGTH.size * i)[0] for i in range(count)]
    meta = [data[head:at], data[at:at + _LENGTH.size * count]]
    at += _LENGTH.size * count
    meta.append(data[at:at + pickled])
    at += pickled
    pads, buffers = [], []
    for n in lengths:
        start = -(-at // ALIGN) * ALIGN
        pads.append(data[at:start])
        buffers.append(data[start:start + n])
        at = start + n
    return (meta, pads, buffers) if at == len(data) else None


def _digest_of(meta: list, pads: list, buffers: list) -> bytes:
    """The body's checksum: CRC-32 over the counts, lengths and pickle and over each pad, and
    for each array buffer the sum and the block-position-weighted sum (mod 2^64) of its
    512-byte blocks' 8-byte words, with a CRC-32 of the bytes after its last whole block, all
    under one SHA-256. The sums take ~2 ms for ResNet-50's 26 MB of arrays, where a CRC-32
    of them took 30-40 ms on each store and each load; any one changed word changes the sum,
    moved or swapped blocks the weighted sum."""
    h = hashlib.sha256()
    crc = 0
    for piece in meta:
        crc = zlib.crc32(piece, crc)
    h.update(_PART.pack(sum(len(p) for p in meta), 0, 0, crc))
    for pad, buf in zip(pads, buffers):
        h.update(_PART.pack(len(pad), 0, 0, zlib.crc32(pad)))
        h.update(_PART.pack(*_word_sums(buf)))
    return h.digest()


def _word_sums(buf) -> tuple:
    """(bytes, word sum, weighted block sum, CRC-32 of the tail) of one array buffer."""
    raw = memoryview(buf).cast("B")
    blocks = len(raw) // _BLOCK
    words = np.frombuffer(raw, np.uint64, blocks * _BLOCK // 8)
    per_block = words.reshape(blocks, _BLOCK // 8).sum(axis=1, dtype=np.uint64)
    weights = np.arange(1, blocks + 1, dtype=np.uint64)
    return (len(raw), int(per_block.sum(dtype=np.uint64)),
            int((per_block * weights).sum(dtype=np.uint64)), zlib.crc32(raw[blocks * _BLOCK:]))


def _entry(name: str, value) -> list:
    """The entry's bytes as pieces (the arrays' data not copied into a pickle)."""
    return _framed(*_parts_of(name, value))


def _parts_of(name: str, value) -> tuple:
    """(meta pieces, pads, array buffers) of an entry: the pickle taken now, each writable
    array's data copied now (it may change once the caller goes on), the read-only ones (the
    graph's constants) left where they are."""
    buffers = []
    pickled = pickle.dumps((name, value), protocol=5, buffer_callback=buffers.append)
    views = [b.raw() for b in buffers]
    views = [v if v.readonly else bytes(v) for v in views]
    meta = [_COUNTS.pack(len(pickled), len(views)),
            b"".join(_LENGTH.pack(len(v)) for v in views), pickled]
    at = len(MAGIC) + _HEAD.size + sum(len(p) for p in meta)
    pads = []
    for v in views:
        pads.append(bytes(-at % ALIGN))
        at += len(pads[-1]) + len(v)
    return meta, pads, views


def _framed(meta: list, pads: list, views: list) -> list:
    """The pieces behind the magic and the header (length, checksum)."""
    body = meta + [piece for pad, v in zip(pads, views) for piece in (pad, v)]
    size = sum(len(p) for p in body)
    return [MAGIC, _HEAD.pack(size, _digest_of(meta, pads, views))] + body


def store(name: str, value) -> None:
    """Write the entry atomically; a cache that cannot be written is skipped silently. The
    entry is pickled here, and checksummed and written by a background thread while the
    caller goes on (the back half of a compile: a ResNet-50 entry is 26 MB); a later load of
    it in this process, flush() and the interpreter's exit wait for the write."""
    path = _path(name)
    if path is None:
        return
    try:
        parts = _parts_of(name, value)
    except (pickle.PicklingError, TypeError, AttributeError, BufferError):
        return
    pool, pending = _writer()
    where = str(path)
    done = pool.submit(_write, path, parts)
    pending[where] = done
    done.add_done_callback(lambda f: pending.get(where) is f and pending.pop(where, None))


def _write(path: Path, parts: tuple) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if str(path.parent) not in _SWEPT:
            _SWEPT.add(str(path.parent))
            sweep(path.parent)
        write_atomic(path, _framed(*parts))
    except OSError:
        return


def sweep(folder: Path, now: float | None = None) -> list:
    """Remove the temp files writers killed mid-write left in `folder` (write_atomic's
    `.NAME.PID.HEX.tmp`): a dead process's once a minute old (a write takes well under a
    second; a pid of another machine sharing the folder may look dead here), anyone's once a
    day old. Run by a process's first store into the folder, in the writer thread. Returns
    the paths removed."""
    now = time.time() if now is None else now
    removed = []
    for tmp in folder.glob(".*.tmp"):
        try:
            pid = int(tmp.name.split(".")[-3])
            age = now - tmp.stat().st_mtime
        except (ValueError, IndexError, OSError):
            continue  # not a name write_atomic makes, or gone already
        if age > STALE_ANY_S or (age > STALE_DEAD_S and not _alive(pid)):
            try:
                tmp.unlink()
                removed.append(tmp)
            except OSError:
                pass
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, another user's
        return True
    return True


def _writer() -> tuple:
    """This process's (one-thread writer pool, {entry path: its write in flight}); a forked
    child starts its own (it has no threads, and its parent finishes its own writes)."""
    mine = _WRITERS.get(os.getpid())
    if mine is None:
        mine = _WRITERS[os.getpid()] = (
            ThreadPoolExecutor(1, thread_name_prefix="npusim-cache-write"), {})
    return mine


def flush() -> None:
    """Wait until every entry this process stored is on disk (or failed to be)."""
    for done in list(_writer()[1].values()):
        done.exception()  # waits; a write that failed only costs the reuse


def _wait_for(path: Path) -> None:
    done = _writer()[1].get(str(path))
    if done is not None:
        done.exception()


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
