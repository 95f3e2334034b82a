"""The ISA spec as a JSON-able dict: the stable machine-readable contract of `npusim isa --json`."""

from __future__ import annotations

from isa.gen.describe import byte_order
from isa.spec import FieldSpec, InstructionSpec, IsaSpec

SCHEMA = 1  # bump when a key changes meaning or disappears; adding keys does not bump it


def field_dict(f: FieldSpec) -> dict:
    # lsb/msb/width: the contiguous bits at lsb that hold the value's low bits (the whole
    # field unless it is split, as in schema 1 before split fields); parts: every run, low
    # first, each with the value bit its lsb holds; bits: the value's whole width
    parts, shift = [], 0
    for lsb, w in f.parts:
        parts.append({"lsb": lsb, "msb": lsb + w - 1, "width": w, "value_lsb": shift})
        shift += w
    return {"name": f.name, "lsb": f.lsb, "msb": f.msb, "width": f.parts[0][1],
            "bits": f.width, "parts": parts, "type": f.type,
            "signed": f.signed, "enum": f.enum, "range": list(f.legal),
            "encodable": list(f.encodable), "target_max": f.target_max, "buffer": f.buffer,
            "doc": f.doc}


def instruction_dict(ins: InstructionSpec) -> dict:
    unit_field = ins.unit[6:] if ins.unit.startswith("field:") else None
    return {"mnemonic": ins.mnemonic, "opcode": ins.opcode, "class": ins.cls,
            "unit": None if unit_field else ins.unit, "unit_field": unit_field,
            "format": ins.format, "semantics": ins.semantics, "ref": ins.ref,
            "timing": ins.timing, "reserved_mask": f"{ins.reserved_mask:#x}",
            "extension_mask": f"{ins.extension_mask:#x}",
            "fields": [field_dict(f) for f in ins.fields]}


def spec_dict(spec: IsaSpec) -> dict:
    return {
        "schema": SCHEMA, "isa": spec.name, "version": spec.version,
        "base_version": spec.base_version or spec.version,
        "word_bits": spec.word_bits, "byte_order": byte_order(spec),
        "opcode": {"lsb": spec.opcode_lsb, "width": spec.opcode_width},
        "semantics_module": spec.semantics_module, "timing": {r.name: {"cycles": r.cycles, "doc": r.doc}
                                                      for r in spec.timing.values()},
        "classes": spec.classes(),
        "enums": {e.name: {"doc": e.doc, "values": dict(e.values)} for e in spec.enums.values()},
        "buffers": {b.name: {"elem_types": dict(b.elem_types), "doc": b.doc}
                    for b in spec.buffers.values()},
        "registers": {r.name: {"index": r.index, "unit": r.unit, "reset": r.reset,
                               "range": list(r.range), "doc": r.doc}
                      for r in spec.registers.values()},
        "instructions": [instruction_dict(i) for i in spec.instructions],
        "dataflows": {d.name: {"doc": d.doc, "timing": dict(d.timing),
                               "target_max": dict(d.target_max)}
                      for d in spec.dataflows.values()},
    }
