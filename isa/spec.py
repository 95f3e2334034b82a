"""Loads and validates the ISA spec (isa/npu_isa.toml) into immutable Python objects."""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from isa.errors import SpecError

SPEC_PATH = Path(__file__).with_name("npu_isa.toml")


@dataclass(frozen=True)
class EnumSpec:
    name: str
    values: dict[str, int]
    doc: str

    @functools.cached_property
    def names(self) -> dict[int, str]:
        return {v: k for k, v in self.values.items()}


@dataclass(frozen=True)
class FieldSpec:
    """One field of an instruction word. `lsb` is where its low bit is and `width` its whole
    width in bits; a split field (spec `lsb = [84, 102], width = [8, 1]`) keeps its value's
    low bits at `lsb` and the rest in further parts, low first (`parts`)."""

    name: str
    lsb: int
    width: int
    type: str                      # "u", "s" or "enum:<name>"
    doc: str = ""
    range: tuple[int, int] | None = None
    target_max: str | None = None  # Target-derived limit checked at assembly time
    buffer: str | None = None      # fixed buffer name or the enum field naming it
    # (lsb, width) of each part in the word, the value's low bits first; () = one part
    parts: tuple[tuple[int, int], ...] = ()
    # the ISA version that added the field ("" for its instruction's own): its bits were
    # reserved before, so a word with it non-zero needs that version (IsaSpec.words_version)
    since: str = ""

    def __post_init__(self):
        if not self.parts:
            object.__setattr__(self, "parts", ((self.lsb, self.width),))

    @property
    def split(self) -> bool:
        """True when the field's bits are in more than one run of the word."""
        return len(self.parts) > 1

    @property
    def signed(self) -> bool:
        return self.type == "s"

    @property
    def enum(self) -> str | None:
        return self.type.split(":", 1)[1] if self.type.startswith("enum:") else None

    @property
    def msb(self) -> int:
        """The top bit of the low part (of the whole field unless it is split)."""
        return self.lsb + self.parts[0][1] - 1

    @property
    def slices(self) -> tuple[tuple[int, int], ...]:
        """(msb, lsb) of each part in the word, the value's low bits first."""
        return tuple((lsb + w - 1, lsb) for lsb, w in self.parts)

    @property
    def mask(self) -> int:
        """The value's bits, (1 << width) - 1."""
        return (1 << self.width) - 1

    @property
    def word_mask(self) -> int:
        """The bits of the instruction word the field occupies."""
        out = 0
        for lsb, w in self.parts:
            out |= ((1 << w) - 1) << lsb
        return out

    def place(self, value: int) -> int:
        """The field's bits of a word holding `value` (two's complement for a signed field)."""
        value &= self.mask
        out, shift = 0, 0
        for lsb, w in self.parts:
            out |= ((value >> shift) & ((1 << w) - 1)) << lsb
            shift += w
        return out

    def extract(self, word: int) -> int:
        """The field's raw (unsigned) value in `word`."""
        out, shift = 0, 0
        for lsb, w in self.parts:
            out |= ((word >> lsb) & ((1 << w) - 1)) << shift
            shift += w
        return out

    @property
    def encodable(self) -> tuple[int, int]:
        if self.signed:
            return -(1 << (self.width - 1)), (1 << (self.width - 1)) - 1
        return 0, self.mask

    @property
    def legal(self) -> tuple[int, int]:
        return self.range if self.range is not None else self.encodable

    @property
    def base_legal(self) -> tuple[int, int]:
        """The legal values the first part holds alone: the field's range in the base version
        (spec `base_version`), before later parts widened it (split fields are unsigned)."""
        lo, hi = self.legal
        return (lo, min(hi, (1 << self.parts[0][1]) - 1)) if self.split else (lo, hi)


@dataclass(frozen=True)
class InstructionSpec:
    mnemonic: str
    opcode: int
    cls: str                       # control, dma, matrix, vector, sync
    unit: str                      # "dispatch", "matrix", "vector", "field:<name>"
    semantics: str
    ref: str
    timing: str
    fields: tuple[FieldSpec, ...]
    format: str | None = None
    # per dataflow of the spec's [dataflow] table: the cycle rule this instruction uses there,
    # and its fields' Target limits there (field name -> target_max, None: no Target limit)
    dataflow_timing: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    dataflow_limits: dict[str, dict[str, str | None]] = field(default_factory=dict,
                                                               compare=False, repr=False)
    # the ISA version that added the instruction ("" for the base version's): a word of it
    # needs that version whatever its fields hold
    since: str = ""
    # per weight-bank count of the spec's [weight_buffers] table (counts past 1): the cycle
    # rules it replaces, rule -> rule (the whole table: it maps whichever rule the dataflow gave)
    weight_buffers_timing: dict[int, dict[str, str]] = field(default_factory=dict,
                                                             compare=False, repr=False)

    @functools.cached_property
    def field_map(self) -> dict[str, FieldSpec]:
        return {f.name: f for f in self.fields}

    def timing_for(self, dataflow: str, weight_buffers: int = 1) -> str:
        """The cycle rule this instruction uses on an array of `dataflow` (ws, os) whose PEs
        hold `weight_buffers` weight banks (the spec's [weight_buffers] table past 1)."""
        try:
            name = self.dataflow_timing[dataflow]
        except KeyError:
            if not self.dataflow_timing:  # built by hand, without a spec's [dataflow] table
                name = self.timing
            else:
                raise SpecError(f"instruction '{self.mnemonic}': unknown dataflow '{dataflow}'; "
                                f"known: {', '.join(self.dataflow_timing)}") from None
        if weight_buffers == 1:
            return name
        try:
            return self.weight_buffers_timing[weight_buffers].get(name, name)
        except KeyError:
            known = ", ".join(map(str, self.weight_buffers_timing)) or "none"
            raise SpecError(f"instruction '{self.mnemonic}': no [weight_buffers."
                            f"{weight_buffers}] table; known counts: 1, {known}") from None

    def limits_for(self, dataflow: str) -> dict[str, str | None]:
        """Field name -> its Target limit (target_max name) on an array of `dataflow`."""
        limits = self.dataflow_limits.get(dataflow)
        if limits is None:
            self.timing_for(dataflow)  # the unknown-dataflow error
            return {f.name: f.target_max for f in self.fields if f.target_max}
        return limits

    @functools.cached_property
    def reserved_mask(self) -> int:
        """Bits of the word this instruction leaves unused; they must be zero."""
        used = 0
        for f in self.fields:
            used |= f.word_mask
        return ((1 << 128) - 1) & ~used & ~0xFF

    @functools.cached_property
    def extension_mask(self) -> int:
        """The bits of the parts after the first of its split fields, and of its fields added
        later (`since`): reserved in the base version (spec `base_version`), so a word with
        none of them set is a base word."""
        out = self.split_high_mask
        for f in self.fields:
            if f.since:
                out |= f.word_mask
        return out

    @functools.cached_property
    def split_high_mask(self) -> int:
        """The bits of the parts after the first of its split fields (the widened values)."""
        out = 0
        for f in self.fields:
            for lsb, w in f.parts[1:]:
                out |= ((1 << w) - 1) << lsb
        return out


@dataclass(frozen=True)
class RegisterSpec:
    name: str
    index: int
    unit: str      # unit class that owns it: matrix, vector, dma
    reset: int
    range: tuple[int, int]
    doc: str


@dataclass(frozen=True)
class BufferSpec:
    name: str
    elem_types: dict[str, str]   # datapath dtype (Target -dtype) -> numpy element type name
    doc: str


@dataclass(frozen=True)
class TimingRule:
    name: str
    cycles: str    # formula over the symbols documented in the spec's [timing] comment
    doc: str


@dataclass(frozen=True)
class DataflowSpec:
    """One dataflow of the array (the Target's -dataflow): what it changes of the first one's
    instruction entries."""

    name: str
    doc: str
    timing: dict[str, str]              # cycle rule -> the rule used instead
    target_max: dict[str, str | None]   # "mnemonic.field" -> its limit here (None: none)


@dataclass(frozen=True)
class IsaSpec:
    name: str
    version: str
    word_bits: int
    opcode_lsb: int
    opcode_width: int
    byte_order: str
    semantics_module: str
    timing: dict[str, TimingRule]
    enums: dict[str, EnumSpec]
    registers: dict[str, RegisterSpec]
    instructions: tuple[InstructionSpec, ...]
    buffers: dict[str, BufferSpec] = field(default_factory=dict)
    path: Path = field(default=SPEC_PATH, compare=False)
    dataflows: dict[str, DataflowSpec] = field(default_factory=dict)
    base_version: str = ""   # the oldest version that reads words with no split high part set
    # [weight_buffers.<n>]: weight banks per PE past 1 -> its doc and the rules it replaces
    weight_buffers: dict[int, dict] = field(default_factory=dict)

    @property
    def dataflow_names(self) -> tuple[str, ...]:
        """The array dataflows ([dataflow]), the default first: ws, os."""
        return tuple(self.dataflows) or ("ws",)

    @functools.cached_property
    def by_mnemonic(self) -> dict[str, InstructionSpec]:
        return {i.mnemonic: i for i in self.instructions}

    @functools.cached_property
    def by_opcode(self) -> dict[int, InstructionSpec]:
        return {i.opcode: i for i in self.instructions}

    def instruction(self, mnemonic: str) -> InstructionSpec:
        """The spec entry of `mnemonic`; SpecError naming the closest one if it has none."""
        try:
            return self.by_mnemonic[mnemonic]
        except KeyError:
            import difflib
            close = difflib.get_close_matches(mnemonic, self.by_mnemonic, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise SpecError(f"no instruction '{mnemonic}' in {self.path.name}; {hint}known: "
                            f"{', '.join(self.by_mnemonic)}") from None

    @property
    def buffer_names(self) -> tuple[str, ...]:
        """The SRAM buffers in enum order: ibuf, wbuf, abuf, obuf."""
        return tuple(self.enums["buf"].values)

    def elem_types(self, dtype: str) -> dict[str, str]:
        """Buffer -> numpy element type name on a `dtype` datapath (int8: abuf int32)."""
        if dtype not in self.dtypes:
            raise SpecError(f"no datapath dtype '{dtype}' in [buffers]; known: "
                            f"{', '.join(self.dtypes)}")
        return {b: self.buffers[b].elem_types[dtype] for b in self.buffer_names}

    @property
    def dtypes(self) -> tuple[str, ...]:
        """The datapath dtypes [buffers] gives element types for (int8, fp16)."""
        first = next(iter(self.buffers.values()))
        return tuple(first.elem_types)

    @property
    def word_bytes(self) -> int:
        return self.word_bits // 8

    @property
    def version_tuple(self) -> tuple[int, int]:
        major, minor = self.version.split(".")
        return int(major), int(minor)

    @property
    def base_version_tuple(self) -> tuple[int, int]:
        major, minor = (self.base_version or self.version).split(".")
        return int(major), int(minor)

    def words_version(self, words) -> tuple[int, int]:
        """The oldest ISA version that decodes every word of `words`: the base version unless
        a word sets a split field's high part (then this spec's version)."""
        if self.base_version_tuple == self.version_tuple:
            return self.version_tuple
        masks = {i.opcode: i.extension_mask for i in self.instructions}
        # an instruction newer than the base version needs this version in any form
        newer = {i.opcode for i in self.instructions if i.since and
                 tuple(int(x) for x in i.since.split(".")) > self.base_version_tuple}
        op = (1 << self.opcode_width) - 1
        for w in words:
            code = (w >> self.opcode_lsb) & op
            if code in newer or w & masks.get(code, 0):
                return self.version_tuple
        return self.base_version_tuple

    def reads(self, version) -> bool:
        """True when words of ISA `version` ("1.0" or (1, 0)) decode under this spec: the
        same major version, no newer minor (a minor version only adds encodings)."""
        try:
            major, minor = (version.split(".") if isinstance(version, str) else version)
            major, minor = int(major), int(minor)
        except (AttributeError, TypeError, ValueError):
            return False
        mine = self.version_tuple
        return major == mine[0] and minor <= mine[1]

    def classes(self) -> list[str]:
        return list(dict.fromkeys(i.cls for i in self.instructions))


def _parts(name: str, raw: dict, where: str) -> tuple[tuple[int, int], ...]:
    """A field's (lsb, width) parts: `lsb = 84, width = 8`, or split, low part first,
    `lsb = [84, 102], width = [8, 1]`."""
    lsb, width = raw["lsb"], raw["width"]
    if isinstance(lsb, list) != isinstance(width, list) or \
            (isinstance(lsb, list) and (len(lsb) != len(width) or len(lsb) < 2)):
        raise SpecError(f"{where}: field '{name}' has lsb {lsb} and width {width}; a split "
                        "field lists two or more of each, low part first: "
                        "lsb = [84, 102], width = [8, 1]")
    pairs = tuple(zip(lsb, width)) if isinstance(lsb, list) else ((lsb, width),)
    if any(int(w) < 1 for _, w in pairs):
        raise SpecError(f"{where}: field '{name}' has a part of width {width}; each is >= 1")
    return tuple((int(b), int(w)) for b, w in pairs)


def _field(name: str, raw: dict, where: str) -> FieldSpec:
    try:
        rng = tuple(raw["range"]) if "range" in raw else None
        parts = _parts(name, raw, where)
        return FieldSpec(name=name, lsb=parts[0][0], width=sum(w for _, w in parts),
                         type=raw.get("type", "u"), doc=raw.get("doc", ""), range=rng,
                         target_max=raw.get("target_max"), buffer=raw.get("buffer"),
                         parts=parts, since=str(raw.get("since", "")))
    except KeyError as e:
        raise SpecError(f"{where}: field '{name}' lacks {e.args[0]!r}") from None


def _validate(spec: IsaSpec) -> None:
    seen: dict[int, str] = {}
    for ins in spec.instructions:
        where = f"instruction '{ins.mnemonic}'"
        if ins.opcode in seen:
            raise SpecError(f"{where}: opcode {ins.opcode:#x} already used by '{seen[ins.opcode]}'")
        if not 0 <= ins.opcode < (1 << spec.opcode_width):
            raise SpecError(f"{where}: opcode {ins.opcode:#x} does not fit {spec.opcode_width} bits")
        seen[ins.opcode] = ins.mnemonic
        used = ((1 << spec.opcode_width) - 1) << spec.opcode_lsb
        for f in ins.fields:
            bits = f.word_mask
            text = ", ".join(f"{hi}:{lo}" for hi, lo in f.slices)
            if any(lo < 0 or hi >= spec.word_bits for hi, lo in f.slices):
                raise SpecError(f"{where}: field '{f.name}' bits {text} outside the word")
            if used & bits or bin(bits).count("1") != f.width:
                raise SpecError(f"{where}: field '{f.name}' bits {text} overlap another field "
                                "or each other")
            used |= bits
            if f.type not in ("u", "s") and f.enum not in spec.enums:
                raise SpecError(f"{where}: field '{f.name}' has unknown type '{f.type}'")
            lo, hi = f.encodable
            if f.range and not (lo <= f.range[0] <= f.range[1] <= hi):
                raise SpecError(f"{where}: field '{f.name}' range {list(f.range)} "
                                f"does not fit its encoding {lo}..{hi}")
            if f.enum and max(spec.enums[f.enum].values.values()) > f.mask:
                raise SpecError(f"{where}: enum '{f.enum}' does not fit field '{f.name}'")
            if f.buffer and f.buffer not in spec.enums["buf"].values and f.buffer not in ins.field_map:
                raise SpecError(f"{where}: field '{f.name}' names unknown buffer '{f.buffer}'")
            if f.since and not (spec.reads(f.since) and f.since != spec.base_version):
                raise SpecError(f"{where}: field '{f.name}' since {f.since!r} is not a version "
                                f"after the base {spec.base_version or spec.version} up to "
                                f"{spec.version}")
        if ins.timing not in spec.timing:
            raise SpecError(f"{where}: timing rule '{ins.timing}' is not in [timing]")
        for name in ins.dataflow_timing.values():
            if name not in spec.timing:
                raise SpecError(f"{where}: its [dataflow] timing rule '{name}' is not in [timing]")
        if ins.unit.startswith("field:") and ins.unit[6:] not in ins.field_map:
            raise SpecError(f"{where}: unit comes from missing field '{ins.unit[6:]}'")
    for count, table in spec.weight_buffers.items():
        for old, new in table["timing"].items():
            if old not in spec.timing or new not in spec.timing:
                raise SpecError(f"[weight_buffers.{count}] maps rule '{old}' to '{new}'; both must "
                                "be in [timing]")
    for reg in spec.registers.values():
        if reg.name not in spec.enums["reg"].values:
            raise SpecError(f"register '{reg.name}' is not in enums.reg")
    if set(spec.buffers) != set(spec.enums["buf"].values):
        raise SpecError(f"[buffers] lists {', '.join(spec.buffers) or 'nothing'}; it must list "
                        f"exactly the buffers of enums.buf: {', '.join(spec.enums['buf'].values)}")
    dtypes = {tuple(b.elem_types) for b in spec.buffers.values()}
    if len(dtypes) != 1:
        raise SpecError(f"[buffers] entries give types for different dtypes: {sorted(dtypes)}; "
                        "every buffer needs one type per datapath dtype")


def _dataflows(raw: dict, instructions: list) -> dict[str, DataflowSpec]:
    """[dataflow.<name>] tables -> DataflowSpec; a "mnemonic.field" key must name a field."""
    fields = {(i["mnemonic"], f) for i in instructions
              for f in {**i.get("fields", {})}}
    out = {}
    for name, d in (raw or {"ws": {}}).items():
        limits = {}
        for key, limit in d.get("target_max", {}).items():
            mnemonic, _, fname = key.partition(".")
            if (mnemonic, fname) not in fields:
                raise SpecError(f"[dataflow.{name}] target_max key '{key}' names no instruction "
                                "field; write it as mnemonic.field, e.g. gemm.k")
            limits[key] = limit or None
        out[name] = DataflowSpec(name, d.get("doc", ""), dict(d.get("timing", {})), limits)
    return out


def _weight_buffers(raw: dict) -> dict[int, dict]:
    """[weight_buffers.<n>] tables -> {n: {"doc": ..., "timing": {rule: rule}}}, n >= 2."""
    out = {}
    for key, table in raw.items():
        if not str(key).isdigit() or int(key) < 2:
            raise SpecError(f"[weight_buffers.{key}]: the key is a count of weight banks past "
                            "the default 1 (2, 3, ...)")
        out[int(key)] = {"doc": table.get("doc", ""), "timing": dict(table.get("timing", {}))}
    return out


def _limits(d: DataflowSpec, mnemonic: str, fields, ws: dict) -> dict[str, str | None]:
    """The Target limits of one instruction's fields on dataflow `d` (None entries dropped)."""
    out = dict(ws)
    for f in fields:
        key = f"{mnemonic}.{f.name}"
        if key in d.target_max:
            out[f.name] = d.target_max[key]
    return {k: v for k, v in out.items() if v}


@functools.lru_cache(maxsize=None)
def load_spec(path: str | Path = SPEC_PATH) -> IsaSpec:
    """Parse and validate the spec file (cached: the spec is immutable)."""
    path = Path(path)
    raw = tomllib.loads(path.read_text())
    formats = raw.get("formats", {})
    enums = {name: EnumSpec(name, dict(e["values"]), e.get("doc", ""))
             for name, e in raw["enums"].items()}
    regs = {}
    for name, r in raw.get("registers", {}).items():
        regs[name] = RegisterSpec(name, enums["reg"].values.get(name, -1), r["unit"],
                                  int(r["reset"]), tuple(r["range"]), r.get("doc", ""))
    dataflows = _dataflows(raw.get("dataflow", {}), raw["instruction"])
    banks = _weight_buffers(raw.get("weight_buffers", {}))
    bank_timing = {n: t["timing"] for n, t in banks.items()}
    instructions = []
    for ins in raw["instruction"]:
        where = f"instruction '{ins.get('mnemonic', '?')}'"
        fmt = ins.get("format")
        if fmt is not None and fmt not in formats:
            raise SpecError(f"{where}: unknown format '{fmt}'")
        merged = {**formats.get(fmt, {}), **ins.get("fields", {})}
        fields = tuple(sorted((_field(n, f, where) for n, f in merged.items()),
                              key=lambda f: f.lsb))
        mnemonic, rule = ins["mnemonic"], ins["timing"]
        limited = {f.name: f.target_max for f in fields if f.target_max}
        instructions.append(InstructionSpec(
            mnemonic=mnemonic, opcode=int(ins["opcode"]), cls=ins["class"],
            unit=ins["unit"], semantics=ins["semantics"], ref=ins["ref"],
            timing=rule, fields=fields, format=fmt,
            dataflow_timing={d.name: d.timing.get(rule, rule) for d in dataflows.values()},
            dataflow_limits={d.name: _limits(d, mnemonic, fields, limited)
                             for d in dataflows.values()},
            since=str(ins.get("since", "")), weight_buffers_timing=bank_timing))
    meta = raw["isa"]
    timing = {name: TimingRule(name, r["cycles"], r.get("doc", ""))
              for name, r in raw.get("timing", {}).items()}
    buffers = {name: BufferSpec(name, {k: v for k, v in b.items() if k != "doc"},
                                b.get("doc", ""))
               for name, b in raw.get("buffers", {}).items()}
    spec = IsaSpec(name=meta["name"], version=meta["version"], word_bits=meta["word_bits"],
                   opcode_lsb=meta["opcode"]["lsb"], opcode_width=meta["opcode"]["width"],
                   byte_order=meta["byte_order"], semantics_module=meta["semantics_module"],
                   timing=timing, enums=enums, registers=regs,
                   instructions=tuple(instructions), buffers=buffers, path=path,
                   dataflows=dataflows, base_version=meta.get("base_version", ""),
                   weight_buffers=banks)
    _validate(spec)
    if not spec.reads(spec.base_version_tuple):
        raise SpecError(f"[isa] base_version {spec.base_version} is not an older minor version "
                        f"of version {spec.version}")
    return spec
