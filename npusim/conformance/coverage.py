"""Coverage of the conformance suite: instruction x field-class x corner bins, derived from the
spec (every field's classes and corners, every enum value, every cfg register's range ends) plus
the semantic corners the reference machine observes (saturation, rounding ties, padding, wrap).

A bin is the string "mnemonic|class:field|corner", e.g. "load|pad:pad_top|max",
"cfg|enum:reg|conv_kh", "vshr|semantic:result|tie_negative". The reference machine records the
bins each test hits while it runs (npusim.conformance.reference); `report` compares them with
`universe`, the bins the spec and the Target define."""

from __future__ import annotations

from dataclasses import dataclass

from isa.checks import target_units
from isa.spec import FieldSpec, InstructionSpec, load_spec
from isa.timing import depthwise_cols

# Semantic corners of each instruction that the reference machine detects on the data.
SEMANTIC = {
    "vadd": ("sat_hi", "sat_lo", "wide_dst"), "vsub": ("sat_hi", "sat_lo", "wide_dst"),
    "vmul": ("sat_hi", "sat_lo", "wide_dst"), "vmax": ("equal", "wide_dst"),
    "vmin": ("equal", "wide_dst"),
    "vrelu": ("negative", "narrow_sat"), "vclip": ("clip_lo", "clip_hi", "lo_above_hi"),
    "vshr": ("tie", "tie_negative", "sat_hi", "sat_lo"),
    "vrequant": ("tie", "tie_negative", "sat_hi", "sat_lo", "relu_clamp", "mult_negative",
                 "bias_sat_hi", "bias_sat_lo"),
    "vbias": ("sat_hi", "sat_lo", "channels_wrap"), "vcopy": ("narrow_sat", "widen"),
    "vlut": ("index_min", "index_max"),
    "vmaxpool": ("pad_window", "padding_never_wins", "overlap", "gap"),
    "vsumpool": ("pad_window", "sat_hi", "sat_lo", "overlap", "gap"),
    "vrmax": ("negative", "narrow_sat", "wide_dst"), "vrsum": ("sat_hi", "sat_lo", "wide_dst"),
    "vrsub": ("sat_hi", "sat_lo"), "vrmul": ("tie", "tie_negative", "sat_hi", "sat_lo"),
    "vexp": ("positive_clamp", "underflow", "exact_one", "narrow_sat"),
    "vrecip": ("zero", "negative", "power_of_two", "sat_hi", "sat_lo"),
    "vrsqrt": ("non_positive", "odd_in_frac", "sat_hi"),
    "gemm": ("wrap", "acc_after_gemm", "transposed_ragged"), "conv": ("pad_top", "pad_left", "pad_bottom", "pad_right",
                                                 "stride", "dilation", "multi_block", "wrap"),
    "dwconv": ("pad_top", "pad_left", "pad_bottom", "pad_right", "stride", "dilation",
               "multi_pass", "wrap"),
    "load": ("planes", "stride_gap", "stride_zero", "pad_all", "dirty_pad"),
    "store": ("planes", "stride_gap", "from_abuf"),
    "wait": ("after_signal",), "gbarrier": ("multi_core",),
}
# Where a field's class says "max" but the value is another field's job: none for now; a bin
# that cannot be hit on a Target is listed here with the reason, and reported as exempt.
EXEMPT: dict[str, str] = {
    **{f"vlut|enum:{f}|abuf": "vlut reads and writes int8 buffers only (abuf is an illegal "
       "operand)" for f in ("dst_buf", "src0_buf", "src1_buf")},
    **{f"vrequant|enum:src1_buf|{b}": "vrequant reads its (mult, shift) table from abuf only"
       for b in ("ibuf", "wbuf", "obuf")},
}


def field_class(ins: InstructionSpec, f: FieldSpec) -> str:
    """enum, flag, addr (SRAM address), dram, count (legal minimum >= 1), pad, signed, uint."""
    if f.enum:
        return "enum"
    if f.buffer:
        return "addr"
    if f.name == "dram":
        return "dram"
    if f.width == 1:
        return "flag"
    if f.name.startswith("pad_"):
        return "pad"
    if f.signed:
        return "signed"
    return "count" if f.legal[0] >= 1 else "uint"


def field_max(f: FieldSpec, target) -> int:
    """A field's largest legal value on `target` (its target_max limit, else its range; a
    vector `len` at most the largest buffer, which ISA 1.1's 23 bits reach on every Target)."""
    hi = f.legal[1]
    if f.name == "len":  # a longer operand fits no buffer: it always faults
        hi = min(hi, max(target.derived.buffer_elems.values()))
    limits = {"dma_chan": target.dma_engines - 1, "array_rows": target.array_rows,
              "array_cols": target.array_cols, "semaphore": target.semaphores - 1,
              "depthwise_cols": depthwise_cols(target)}
    return min(hi, limits.get(f.target_max, hi))


def _field_corners(ins: InstructionSpec, f: FieldSpec, target) -> tuple[str, ...]:
    cls = field_class(ins, f)
    spec = load_spec()
    if cls == "enum":
        values = spec.enums[f.enum].values
        if f.enum == "unit":
            return tuple(target_units(target))
        return tuple(values)
    if cls in ("addr", "dram"):
        return ("zero", "top")
    if cls == "flag":
        return ("0", "1")
    if cls == "signed":
        return ("min", "neg", "zero", "pos", "max")
    if ins.mnemonic == "cfg":
        return ()
    return ("min", "max")


def universe(target) -> dict[str, tuple[str, str, str]]:
    """Every bin on `target`: bin -> (instruction, class:field, corner)."""
    spec = load_spec()
    out = {}
    for ins in spec.instructions:
        if ins.mnemonic == "dwconv" and not depthwise_cols(target):
            continue  # the array has no depthwise mode: no dwconv runs on this Target
        out[f"{ins.mnemonic}|op|executed"] = (ins.mnemonic, "op", "executed")
        for f in ins.fields:
            if ins.mnemonic == "cfg" and f.name == "value":
                continue  # per register, below
            for corner in _field_corners(ins, f, target):
                key = f"{field_class(ins, f)}:{f.name}"
                out[f"{ins.mnemonic}|{key}|{corner}"] = (ins.mnemonic, key, corner)
        for corner in SEMANTIC.get(ins.mnemonic, ()):
            out[f"{ins.mnemonic}|semantic:result|{corner}"] = (ins.mnemonic, "semantic:result",
                                                                corner)
    for reg in spec.registers.values():
        for corner in ("min", "max"):
            out[f"cfg|reg:{reg.name}|{corner}"] = ("cfg", f"reg:{reg.name}", corner)
    if target.num_cores < 2:
        out.pop("gbarrier|semantic:result|multi_core", None)
    return out


def field_hits(instr, target, extents: dict, dram_end: int | None, dram_bytes: int) -> set[str]:
    """The field bins one executed instruction hits (`extents`: isa.operands.extents of it with
    its unit's registers; `dram_end`: one past the last DRAM byte a load/store touches)."""
    ins, f = instr.spec, instr.fields
    m = ins.mnemonic
    hits = {f"{m}|op|executed"}
    spec = load_spec()
    sizes = target.derived.buffer_elems
    for fs in ins.fields:
        value = f[fs.name]
        cls = field_class(ins, fs)
        key = f"{m}|{cls}:{fs.name}|"
        if m == "cfg" and fs.name == "value":
            reg = spec.registers[spec.enums["reg"].names[f["reg"]]]
            for corner, bound in zip(("min", "max"), reg.range):
                if value == bound:
                    hits.add(f"cfg|reg:{reg.name}|{corner}")
            continue
        if cls == "enum":
            hits.add(key + spec.enums[fs.enum].names[value])
        elif cls == "flag":
            hits.add(key + str(value))
        elif cls == "addr":
            if value == 0:
                hits.add(key + "zero")
            ext = extents.get(fs.name)
            buf = fs.buffer if fs.buffer in sizes else spec.enums["buf"].names[f[fs.buffer]]
            if ext is not None and value + ext.count == sizes[buf]:
                hits.add(key + "top")
        elif cls == "dram":
            if value == 0:
                hits.add(key + "zero")
            if dram_end == dram_bytes:
                hits.add(key + "top")
        elif cls == "signed":
            lo, hi = fs.legal
            hits.update(key + c for c, ok in (("min", value == lo), ("max", value == hi),
                                               ("neg", value < 0), ("zero", value == 0),
                                               ("pos", value > 0)) if ok)
        else:
            if value == fs.legal[0]:
                hits.add(key + "min")
            if value == field_max(fs, target):
                hits.add(key + "max")
    return hits


@dataclass
class Report:
    """Bins of the universe, the ones hit, and the fraction covered (exempt bins excluded)."""

    bins: dict
    hit: set
    exempt: dict

    @property
    def counted(self) -> list[str]:
        return [b for b in self.bins if b not in self.exempt]

    @property
    def covered(self) -> list[str]:
        return [b for b in self.counted if b in self.hit]

    @property
    def uncovered(self) -> list[str]:
        return [b for b in self.counted if b not in self.hit]

    @property
    def fraction(self) -> float:
        return len(self.covered) / len(self.counted) if self.counted else 1.0

    def of(self, kind: str) -> float:
        """Fraction covered of the bins whose class starts with `kind` ("op", "enum", ...)."""
        mine = [b for b in self.counted if self.bins[b][1].startswith(kind)]
        return sum(b in self.hit for b in mine) / len(mine) if mine else 1.0

    def table(self) -> list[dict]:
        """One row per instruction x class: bins, covered, percent, the uncovered corners."""
        rows: dict = {}
        for b in self.counted:
            m, key, corner = self.bins[b]
            cls = key.split(":")[0]
            row = rows.setdefault((m, cls), {"instruction": m, "class": cls, "bins": 0,
                                             "covered": 0, "uncovered": []})
            row["bins"] += 1
            if b in self.hit:
                row["covered"] += 1
            else:
                row["uncovered"].append(f"{key.split(':', 1)[-1]}={corner}")
        for row in rows.values():
            row["percent"] = 100.0 * row["covered"] / row["bins"]
        return list(rows.values())

    def to_json(self) -> dict:
        return {"bins": len(self.counted), "covered": len(self.covered),
                "fraction": self.fraction, "instructions": self.of("op"),
                "enum_values": self.of("enum"), "uncovered": self.uncovered,
                "exempt": dict(self.exempt)}


def report(hit: set, target) -> Report:
    bins = universe(target)
    return Report(bins, set(hit) & set(bins), {b: r for b, r in EXEMPT.items() if b in bins})


__all__ = ["SEMANTIC", "universe", "field_hits", "report", "Report", "field_class"]
