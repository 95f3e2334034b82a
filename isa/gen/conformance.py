"""Renders isa/conformance.json: per instruction, the conformance checks tests/isa must implement."""

from __future__ import annotations

import json
from pathlib import Path

from isa.gen import banner
from isa.spec import InstructionSpec, IsaSpec

# What each case name means; tests/isa/test_conformance.py implements one test per name.
CASES = {
    "roundtrip": "decode(encode(x)) == x for fields drawn from their legal ranges",
    "golden": "one encoding spelled out as bytes in the test, computed by hand",
    "above_range": "each field's legal maximum + 1 is refused with EncodingError",
    "below_range": "each field's legal minimum - 1 is refused with EncodingError",
    "bad_enum": "an enum number the field can hold but the enum lacks: EncodingError / DecodeError",
    "illegal_decode": "a word whose field holds an encodable but illegal value: DecodeError",
    "reserved_bits": "each reserved bit set alone in a legal word: DecodeError",
    "split_fields": "each split field at the edges of its parts (the low part's maximum, the "
                    "first value needing a high part, the legal maximum) lands in exactly its "
                    "parts' bits and round-trips; below the first, the high parts stay zero",
}


def cases(spec: IsaSpec, ins: InstructionSpec) -> list[str]:
    """The checks that apply to `ins`, derived from its fields."""
    out = ["roundtrip", "golden"]
    if ins.fields:
        out += ["above_range", "below_range"]
    if any(f.enum and len(spec.enums[f.enum].values) < (1 << f.width) for f in ins.fields):
        out.append("bad_enum")
    if any(f.legal != f.encodable for f in ins.fields):
        out.append("illegal_decode")
    if ins.reserved_mask:
        out.append("reserved_bits")
    if any(f.split for f in ins.fields):
        out.append("split_fields")
    return out


def entries(spec: IsaSpec) -> list[dict]:
    return [{"mnemonic": ins.mnemonic, "opcode": ins.opcode, "class": ins.cls,
             "fields": [{"name": f.name, "bits": [f.msb, f.lsb], "type": f.type,
                         "range": list(f.legal),
                         **({"parts": [list(p) for p in f.slices]} if f.split else {})}
                        for f in ins.fields],
             "cases": cases(spec, ins)}
            for ins in spec.instructions]


def render(spec: IsaSpec, root: Path | None = None) -> str:
    # JSON has no comments: the banner is the first key, alone on the first line; one
    # instruction per line keeps diffs of this file readable.
    dump = lambda x: json.dumps(x, ensure_ascii=False)  # noqa: E731
    lines = ["{" + f'"_comment": {dump(banner(spec))},',
             f' "isa": {dump(spec.name)}, "version": {dump(spec.version)},',
             f' "cases": {dump(CASES)},',
             ' "instructions": [']
    body = [f"  {dump(e)}" for e in entries(spec)]
    lines += [",\n".join(body), " ]}"]
    return "\n".join(lines) + "\n"
