"""The compiled-model artifact: assembled program, constants image, tensor map, target and ISA
version, saved as a directory that `npusim` loads again; stale or corrupted ones are refused."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import CompilerError

FORMAT = "npusim-artifact"
FORMAT_VERSION = 1
FILES = {"program": "program.bin", "constants": "constants.bin", "assembly": "program.s"}


class ArtifactError(CompilerError):
    """An artifact cannot be loaded: missing, stale (other ISA or format) or corrupted."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class TensorEntry:
    """A model input or output in DRAM, with its host-side conversion."""

    name: str                 # the NPU tensor (graph value) name
    dram: int
    shape: tuple
    dtype: str
    model_name: str = ""      # the float model's name for it
    scale: float | None = None
    perm: tuple | None = None     # inputs: host transpose before quantizing
    post: tuple = ()              # outputs: host steps after dequantizing
    pre: tuple = ()               # inputs: host steps before the device reads it (("gather",
    #                               (table, axis)): an embedding lookup of the token ids
    #                               `model_name`; the table stays with the host, not saved)

    def to_json(self) -> dict:
        return {"name": self.name, "dram": self.dram, "shape": list(self.shape),
                "dtype": self.dtype, "model_name": self.model_name, "scale": self.scale,
                "perm": list(self.perm) if self.perm else None,
                "post": [[k, list(a) if isinstance(a, (tuple, list)) else a]
                         for k, a in self.post],
                **({"pre": [[k, list(a)] for k, a in self.pre]} if self.pre else {})}

    @classmethod
    def from_json(cls, d: dict) -> "TensorEntry":
        return cls(d["name"], int(d["dram"]), tuple(d["shape"]), d["dtype"],
                   d.get("model_name", ""), d.get("scale"),
                   tuple(d["perm"]) if d.get("perm") else None,
                   tuple((k, tuple(a) if isinstance(a, list) else a)
                         for k, a in d.get("post", [])),
                   tuple((k, tuple(a)) for k, a in d.get("pre", [])))


@dataclass
class Artifact:
    """Everything needed to run a compiled model on the simulator (or a device)."""

    program: object               # isa.asm.Program
    listing: object               # program.s as loaded (str), or isa.asm.Annotations to print
    constants: bytes
    const_base: int
    target: str
    model: str
    inputs: list                  # TensorEntry
    outputs: list
    layers: list = field(default_factory=list)     # per-layer facts (dicts)
    layer_of: list = field(default_factory=list)   # per core: [[first instr, layer], ...]
    meta: dict = field(default_factory=dict)

    @property
    def assembly(self) -> str:
        """program.s: the program disassembled with the compiler's comments (done once, on
        first use: compiling needs no text)."""
        if not isinstance(self.listing, str):
            from isa.asm import disassemble
            self.listing = disassemble(self.program, indices=False, annotations=self.listing)
        return self.listing

    @property
    def isa_version(self) -> str:
        return self.program.isa_version  # the oldest ISA that runs it (1.0 if it can)

    def dram_image(self, dram) -> None:
        """Write the constants into a simulator Dram (npusim.memory.Dram)."""
        dram.bytes[self.const_base:self.const_base + len(self.constants)] = \
            np.frombuffer(self.constants, np.uint8)

    # ---------------------------------------------------------------- files
    def save(self, directory) -> Path:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        blobs = {"program": self.program.to_bytes(), "constants": self.constants,
                 "assembly": self.assembly.encode()}
        from isa.files import write_atomic
        for key, data in blobs.items():
            write_atomic(d / FILES[key], data)
        manifest = {
            "format": FORMAT, "format_version": FORMAT_VERSION, "isa_version": self.isa_version,
            "target": self.target, "model": self.model, "const_base": self.const_base,
            "files": {FILES[k]: {"sha256": _sha(v), "bytes": len(v)} for k, v in blobs.items()},
            "inputs": [t.to_json() for t in self.inputs],
            "outputs": [t.to_json() for t in self.outputs],
            "layers": self.layers, "layer_of": self.layer_of, "meta": self.meta}
        manifest = json.loads(json.dumps(manifest, default=_json))  # as load() will read it
        manifest["manifest_sha256"] = _manifest_sha(manifest)
        # the manifest last: it names every file's hash, so a half-written artifact is refused
        write_atomic(d / "manifest.json", json.dumps(manifest, indent=1))
        return d

    @classmethod
    def load(cls, directory) -> "Artifact":
        from isa.asm import ContainerError, Program
        d = Path(directory)
        path = d / "manifest.json"
        if not path.is_file():
            raise ArtifactError(f"{d} is not a compiled model: no manifest.json there "
                                "(create one with `npusim compile MODEL -o DIR`)")
        try:
            m = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError) as e:
            raise ArtifactError(f"{path}: corrupted: not JSON ({e})") from None
        if not isinstance(m, dict) or m.get("format") != FORMAT:
            raise ArtifactError(f"{path}: not an {FORMAT} manifest")
        if m.get("format_version") != FORMAT_VERSION:
            raise ArtifactError(f"{d}: stale artifact: format version {m.get('format_version')}"
                                f", this npusim reads {FORMAT_VERSION}; recompile the model")
        from isa.spec import load_spec
        if not load_spec().reads(str(m.get("isa_version"))):
            raise ArtifactError(f"{d}: stale artifact: built for ISA {m.get('isa_version')}, "
                                f"this npusim implements {load_spec().version}; recompile it")
        _check_fields(path, m)
        blobs = {}
        for key, fname in FILES.items():
            f = d / fname
            info = m.get("files", {}).get(fname)
            if not f.is_file() or info is None:
                raise ArtifactError(f"{d}: incomplete artifact: {fname} is missing")
            data = f.read_bytes()
            if _sha(data) != info.get("sha256"):
                raise ArtifactError(f"{f}: corrupted: sha256 {_sha(data)[:12]}... does not match "
                                    f"the manifest's {str(info.get('sha256'))[:12]}...; "
                                    "recompile the model")
            blobs[key] = data
        try:
            program = Program.from_bytes(blobs["program"], name=str(d / FILES["program"]))
        except ContainerError as e:
            raise ArtifactError(str(e)) from None
        if program.target != m["target"]:
            raise ArtifactError(f"{d}: corrupted: program target '{program.target}' differs from "
                                f"the manifest's '{m['target']}'")
        art = cls(program, blobs["assembly"].decode(), blobs["constants"], int(m["const_base"]),
                  m["target"], m["model"], [TensorEntry.from_json(t) for t in m["inputs"]],
                  [TensorEntry.from_json(t) for t in m["outputs"]], m.get("layers", []),
                  m.get("layer_of", []), m.get("meta", {}))
        _check_against_program(path, art)
        return art

    def program_names(self) -> dict:
        """{program .tensor name: the manifest's name} of the inputs and outputs: the same DRAM
        address, shape and element type (the program spells names as assembly identifiers,
        so the manifest's input.nhwc is input_nhwc there)."""
        entries = [*self.inputs, *self.outputs]
        return {name: e.name for name, d in self.program.tensors.items() for e in entries
                if (d.dram, tuple(d.shape), str(d.dtype)) == (e.dram, tuple(e.shape), e.dtype)}


# the manifest's fields, and the types load() needs them to have
FIELDS = {"target": str, "model": str, "const_base": int, "files": dict, "inputs": list,
          "outputs": list, "layers": list, "layer_of": list, "meta": dict}
TENSOR_FIELDS = {"name": str, "dram": int, "shape": list, "dtype": str}
DTYPES = ("int8", "int16", "int32", "float16", "float32")


def _manifest_sha(m: dict) -> str:
    body = {k: v for k, v in m.items() if k != "manifest_sha256"}
    return _sha(json.dumps(body, sort_keys=True).encode())


def _is(value, kind) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def _check_fields(path: Path, m: dict) -> None:
    """Every field load() reads is there with its type, and the manifest is the one written
    (its own sha256): a hand-edited or truncated manifest is refused, never half-trusted."""
    for key, kind in FIELDS.items():
        if key not in m:
            raise ArtifactError(f"{path}: corrupted: no '{key}' field; recompile the model")
        if not _is(m[key], kind):
            raise ArtifactError(f"{path}: corrupted: '{key}' is {type(m[key]).__name__} "
                                f"{str(m[key])[:40]!r}, not {kind.__name__}; recompile the model")
    if m["const_base"] < 0:
        raise ArtifactError(f"{path}: corrupted: const_base {m['const_base']} is negative")
    for role in ("inputs", "outputs"):
        for i, t in enumerate(m[role]):
            where = f"{path}: corrupted: {role}[{i}]"
            if not isinstance(t, dict):
                raise ArtifactError(f"{where} is not an object")
            for key, kind in TENSOR_FIELDS.items():
                if not _is(t.get(key), kind):
                    raise ArtifactError(f"{where}.{key} is {t.get(key)!r}, not {kind.__name__}")
            if t["dtype"] not in DTYPES:
                raise ArtifactError(f"{where}.dtype '{t['dtype']}' is not one of "
                                    f"{', '.join(DTYPES)}")
            if not t["shape"] or not all(_is(n, int) and n > 0 for n in t["shape"]):
                raise ArtifactError(f"{where}.shape {t['shape']} is not a list of sizes >= 1")
    if not all(isinstance(core, list) and all(isinstance(p, list) and len(p) == 2 and
                                              all(_is(x, int) for x in p) for p in core)
               for core in m["layer_of"]):
        raise ArtifactError(f"{path}: corrupted: layer_of must list [instruction, layer] "
                            "integer pairs per core")
    want = m.get("manifest_sha256")
    if want is not None and want != _manifest_sha(m):
        raise ArtifactError(f"{path}: corrupted: the manifest was edited (its sha256 does not "
                            "match the one written with it); recompile the model")


def _check_against_program(path: Path, art: "Artifact") -> None:
    """The manifest's tensors are tensors the program declares (program_names), and the
    constants fit the target's DRAM."""
    from isa.target import Target
    dram = Target.create(art.target).derived.dram_bytes
    if art.const_base + len(art.constants) > dram:
        raise ArtifactError(f"{path}: corrupted: constants at {art.const_base:#x} "
                            f"({len(art.constants):,} B) end past the target's {dram:,} B of "
                            "DRAM")
    matched = set(art.program_names().values())
    for role, entries in (("input", art.inputs), ("output", art.outputs)):
        for e in entries:
            if e.name not in matched:
                there = [f"{d.dtype}{list(d.shape)}" for d in art.program.tensors.values()
                         if d.dram == e.dram]
                raise ArtifactError(f"{path}: corrupted: {role} '{e.name}' is "
                                    f"{e.dtype}{list(e.shape)} at {e.dram:#x}, but the program "
                                    f"declares {' or '.join(there) or 'nothing'} there; "
                                    "recompile the model")


def _json(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(f"cannot store {type(o).__name__} in a manifest")
