"""The assembled-program container: per-core instruction words plus target, tensors and labels."""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass, field
from math import prod
from pathlib import Path

from isa.asm.errors import ContainerError
from isa.codec import Instruction, decode_word, encode_word
from isa.errors import DecodeError
from isa.spec import load_spec

MAGIC = b"NPUPROG\0"
CONTAINER_VERSION = 1
# magic, container version (u16), ISA major (u8), ISA minor (u8), metadata length (u32)
_HEADER = struct.Struct("<8sHBBI")
_CRC = struct.Struct("<I")
DTYPES = {"int8": 1, "int32": 4, "float16": 2, "float32": 4}  # bytes per element


@dataclass(frozen=True)
class TensorDecl:
    """A named DRAM tensor: byte address, shape and element type (row-major, dense)."""

    dram: int
    shape: tuple[int, ...]
    dtype: str

    @property
    def nbytes(self) -> int:
        return prod(self.shape) * DTYPES[self.dtype]

    def to_json(self) -> dict:
        return {"dram": self.dram, "shape": list(self.shape), "dtype": self.dtype}


@dataclass
class Program:
    """Instruction words per core, the Target string it was built for, tensors and labels."""

    cores: list[list[int]] = field(default_factory=lambda: [[]])
    target: str | None = None
    tensors: dict[str, TensorDecl] = field(default_factory=dict)
    labels: dict[int, dict[str, int]] = field(default_factory=dict)
    source: str | None = None
    _decoded: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_instructions(cls, cores: list[list[Instruction]], words: list | None = None,
                          **kw) -> "Program":
        """Build from decoded/constructed Instructions (what a compiler backend emits); they
        are kept as the decoded form, so nothing decodes the words again. `words`: their
        encodings, when the caller has them already (encode_word of each)."""
        if words is None:
            memo: dict = {}  # id -> word: a compiler shares one object per repeated form
            words = [[memo[id(i)] if id(i) in memo else memo.setdefault(id(i), encode_word(i))
                      for i in core] for core in cores]
        if [len(w) for w in words] != [len(c) for c in cores]:
            raise ValueError("from_instructions: one word per instruction, per core")
        prog = cls([list(w) for w in words], **kw)
        prog._decoded = {c: list(core) for c, core in enumerate(cores)}
        return prog

    @property
    def num_cores(self) -> int:
        return len(self.cores)

    @property
    def isa_version_tuple(self) -> tuple[int, int]:
        """The oldest ISA version that runs these words (isa.spec.IsaSpec.words_version): 1.0
        for a program that sets no high part of a split field, so its bytes are 1.0's."""
        return load_spec().words_version(w for core in self.cores for w in core)

    @property
    def isa_version(self) -> str:
        return "%d.%d" % self.isa_version_tuple

    @property
    def num_instructions(self) -> int:
        return sum(map(len, self.cores))

    def instructions(self, core: int = 0) -> list[Instruction]:
        """The decoded instructions of one core (decoded once, then cached)."""
        if core not in self._decoded:
            if not 0 <= core < len(self.cores):
                raise IndexError(f"core {core} out of range 0..{len(self.cores) - 1}")
            self._decoded[core] = [decode_word(w) for w in self.cores[core]]
        return self._decoded[core]

    # ---- binary container -------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        spec = load_spec()
        major, minor = self.isa_version_tuple
        meta = json.dumps({
            "target": self.target, "source": self.source, "num_cores": len(self.cores),
            "word_counts": [len(c) for c in self.cores],
            "tensors": {n: t.to_json() for n, t in self.tensors.items()},
            # canonical order (by index, then name) so equal programs give equal bytes
            "labels": {str(c): dict(sorted(ls.items(), key=lambda kv: (kv[1], kv[0])))
                       for c, ls in sorted(self.labels.items()) if ls},
        }, separators=(",", ":")).encode()
        body = bytearray(_HEADER.pack(MAGIC, CONTAINER_VERSION, major, minor, len(meta)))
        body += meta
        for core in self.cores:
            for w in core:
                body += w.to_bytes(spec.word_bytes, "little")
        return bytes(body + _CRC.pack(zlib.crc32(body)))

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>") -> "Program":
        """Parse a container; ContainerError (one line, naming `name`) when it is not loadable."""
        spec = load_spec()
        head = bytes(data[:len(MAGIC)])
        if head != MAGIC[:len(head)]:
            raise ContainerError(f"{name} is not an npusim program (bad magic {head!r}, "
                                 f"expected {MAGIC!r}); assemble source with `npusim asm`")
        if len(data) < _HEADER.size + _CRC.size:
            raise ContainerError(f"{name}: truncated: expected at least "
                                 f"{_HEADER.size + _CRC.size} bytes, got {len(data)}")
        _, version, major, minor, meta_len = _HEADER.unpack_from(data)
        if version != CONTAINER_VERSION:
            raise ContainerError(f"{name}: container version {version}, this npusim reads "
                                 f"version {CONTAINER_VERSION}; reassemble it")
        if not spec.reads((major, minor)):  # a 1.1 npusim runs 1.0 programs, not 2.0 ones
            raise ContainerError(f"{name}: built for ISA {major}.{minor}, this npusim implements "
                                 f"{spec.version}; reassemble it")
        need = _HEADER.size + meta_len + _CRC.size
        if len(data) < need:
            raise ContainerError(f"{name}: truncated: expected at least {need} bytes, "
                                 f"got {len(data)}")
        problem = "unreadable metadata"
        try:
            meta = json.loads(data[_HEADER.size:_HEADER.size + meta_len])
            counts = [int(n) for n in meta["word_counts"]]
            total = need + spec.word_bytes * sum(counts)
            if not counts or min(counts) < 0:
                problem = f"word_counts {counts} needs one count >= 0 per core, at least one core"
                raise ValueError(problem)
        except (ValueError, KeyError, TypeError):
            meta, total = None, len(data)
        if len(data) < total:
            raise ContainerError(f"{name}: truncated: expected {total} bytes, got {len(data)}")
        stored, = _CRC.unpack_from(data, total - _CRC.size)
        computed = zlib.crc32(data[:total - _CRC.size])
        if stored != computed:
            raise ContainerError(f"{name}: corrupted: checksum mismatch (stored {stored:#010x}, "
                                 f"computed {computed:#010x})")
        if len(data) > total:
            raise ContainerError(f"{name}: corrupted: {len(data) - total} bytes after the "
                                 f"checksum (expected {total} bytes, got {len(data)})")
        if meta is None:
            raise ContainerError(f"{name}: corrupted: {problem}")
        return cls._from_parts(data, meta, counts, _HEADER.size + meta_len, name)

    @classmethod
    def _from_parts(cls, data: bytes, meta: dict, counts: list[int], offset: int,
                    name: str) -> "Program":
        n = load_spec().word_bytes
        cores = []
        for count in counts:
            cores.append([int.from_bytes(data[offset + i * n:offset + (i + 1) * n], "little")
                          for i in range(count)])
            offset += count * n
        try:
            prog = cls(cores=cores, target=meta.get("target"), source=meta.get("source"),
                       tensors={k: TensorDecl(int(v["dram"]), tuple(v["shape"]), v["dtype"])
                                for k, v in meta.get("tensors", {}).items()},
                       labels={int(c): {k: int(v) for k, v in ls.items()}
                               for c, ls in meta.get("labels", {}).items()})
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ContainerError(f"{name}: corrupted: bad metadata ({e})") from None
        for core, ls in prog.labels.items():
            for label, index in ls.items():
                if not 0 <= core < len(cores) or not 0 <= index <= len(cores[core]):
                    raise ContainerError(f"{name}: corrupted: label '{label}' at core {core} "
                                         f"index {index} is outside the program")
        for key in ("target", "source"):
            if not isinstance(getattr(prog, key), (str, type(None))):
                raise ContainerError(f"{name}: corrupted: {key} {getattr(prog, key)!r} is not "
                                     "a string")
        for tname, t in prog.tensors.items():
            if t.dtype not in DTYPES:
                raise ContainerError(f"{name}: tensor '{tname}' has unknown dtype '{t.dtype}'; "
                                     f"known: {', '.join(DTYPES)}")
            if t.dram < 0 or not t.shape or not all(type(d) is int and d > 0 for d in t.shape):
                raise ContainerError(f"{name}: corrupted: tensor '{tname}' at dram={t.dram} with "
                                     f"shape {list(t.shape)}; a tensor needs an address >= 0 "
                                     "and positive integer dimensions")
        for core, words in enumerate(cores):
            decoded = []
            for index, word in enumerate(words):
                try:
                    decoded.append(decode_word(word))
                except DecodeError as e:
                    raise ContainerError(f"{name}: core {core} instruction {index}: {e}") from None
            prog._decoded[core] = decoded
        return prog

    def save(self, path: str | Path) -> int:
        """Write the container; returns its size in bytes."""
        from isa.files import write_atomic
        data = self.to_bytes()
        write_atomic(path, data)
        return len(data)

    @classmethod
    def load(cls, path: str | Path) -> "Program":
        path = Path(path)
        return cls.from_bytes(path.read_bytes(), name=str(path))
