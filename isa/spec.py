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
    name: str
    lsb: int
    width: int
    type: str                      # "u", "s" or "enum:<name>"
    doc: str = ""
    range: tuple[int, int] | None = None
    target_max: str | None = None  # Target-derived limit checked at assembly time
    buffer: str | None = None      # fixed buffer name or the enum field naming it

    @property
    def signed(self) -> bool:
        return self.type == "s"

    @property
    def enum(self) -> str | None:
        return self.type.split(":", 1)[1] if self.type.startswith("enum:") else None

    @property
    def msb(self) -> int:
        return self.lsb + self.width - 1

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    @property
    def encodable(self) -> tuple[int, int]:
        if self.signed:
            return -(1 << (self.width - 1)), (1 << (self.width - 1)) - 1
        return 0, self.mask

    @property
    def legal(self) -> tuple[int, int]:
        return self.range if self.range is not None else self.encodable


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

    @functools.cached_property
    def field_map(self) -> dict[str, FieldSpec]:
        return {f.name: f for f in self.fields}

    def timing_for(self, dataflow: str) -> str:
        """The cycle rule this instruction uses on an array of `dataflow` (ws, os)."""
        try:
            return self.dataflow_timing[dataflow]
        except KeyError:
            if not self.dataflow_timing:  # built by hand, without a spec's [dataflow] table
                return self.timing
            raise SpecError(f"instruction '{self.mnemonic}': unknown dataflow '{dataflow}'; "
                            f"known: {', '.join(self.dataflow_timing)}") from None

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
            used |= f.mask << f.lsb
        return ((1 << 128) - 1) & ~used & ~0xFF


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

    def classes(self) -> list[str]:
        return list(dict.fromkeys(i.cls for i in self.instructions))


def _field(name: str, raw: dict, where: str) -> FieldSpec:
    try:
        rng = tuple(raw["range"]) if "range" in raw else None
        return FieldSpec(name=name, lsb=int(raw["lsb"]), width=int(raw["width"]),
                         type=raw.get("type", "u"), doc=raw.get("doc", ""), range=rng,
                         target_max=raw.get("target_max"), buffer=raw.get("buffer"))
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
            bits = f.mask << f.lsb
            if f.lsb < 0 or f.msb >= spec.word_bits:
                raise SpecError(f"{where}: field '{f.name}' bits {f.msb}:{f.lsb} outside the word")
            if used & bits:
                raise SpecError(f"{where}: field '{f.name}' bits {f.msb}:{f.lsb} overlap another field")
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
        if ins.timing not in spec.timing:
            raise SpecError(f"{where}: timing rule '{ins.timing}' is not in [timing]")
        for name in ins.dataflow_timing.values():
            if name not in spec.timing:
                raise SpecError(f"{where}: its [dataflow] timing rule '{name}' is not in [timing]")
        if ins.unit.startswith("field:") and ins.unit[6:] not in ins.field_map:
            raise SpecError(f"{where}: unit comes from missing field '{ins.unit[6:]}'")
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
                             for d in dataflows.values()}))
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
                   dataflows=dataflows)
    _validate(spec)
    return spec
