"""Renders docs/isa.md, the ISA reference: overview, every instruction with its bit picture, enums, registers."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

from isa.gen import banner
from isa.gen.bitfield import picture
from isa.gen.describe import bits_text, byte_order, range_text, timing_rule, type_text, unit_text
from isa.spec import FieldSpec, InstructionSpec, IsaSpec

ASSEMBLY_DOC = "docs/assembly.md"
TRANSFORMER_DOC = "docs/transformer.md"


def _esc(text: str) -> str:
    """Escape Markdown emphasis and table pipes in free text from the spec."""
    return re.sub(r"([\\*_|])", r"\\\1", text)


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            + ["| " + " | ".join(r) + " |" for r in rows])


def _meaning(f: FieldSpec) -> str:
    text = _esc(f.doc)
    if f.buffer:
        where = f"`{f.buffer}`" if f.buffer not in ("dst_buf", "src0_buf", "src1_buf", "buf") \
            else f"the buffer named by `{f.buffer}`"
        text += f" (element address in {where})"
    return text


def _instruction(spec: IsaSpec, ins: InstructionSpec) -> list[str]:
    sem = importlib.import_module(spec.semantics_module)
    # `ref` names the functional model's handler (npusim.exec.HANDLERS), which computes
    # with the functions of the semantics module.
    ref = f"`npusim.exec` handler `{ins.ref}`" + (
        f", computing with `{spec.semantics_module}.{ins.ref}`" if hasattr(sem, ins.ref) else "")
    out = [f"#### `{ins.mnemonic}`", "",
           f"- opcode: `{ins.opcode:#04x}`; class: {ins.cls}; unit: {unit_text(ins)}"
           + (f"; operand format: {ins.format}" if ins.format else ""),
           f"- semantics: {_esc(ins.semantics)}",
           f"- reference: {ref}",
           f"- timing: `{timing_rule(spec, ins.timing)}`", ""]
    if ins.fields:
        rows = [[bits_text(f), f"`{f.name}`", type_text(f),
                 range_text(f), f"`{f.target_max}`" if f.target_max else "", _meaning(f)]
                for f in reversed(ins.fields)]
        out += _table(["bits", "field", "type", "range", "target limit", "meaning"], rows) + [""]
    else:
        out += ["No operand fields.", ""]
    out += ["```text", *picture(ins, spec.word_bits, (spec.opcode_lsb, spec.opcode_width)),
            "```", ""]
    return out


def _assembly(root: Path, doc: str = ASSEMBLY_DOC) -> list[str]:
    """The hand-written page `doc`, its headings pushed under this reference's `##`."""
    path = root / doc
    if not path.exists():
        return [f"`{doc}` does not exist yet; `python -m isa.gen` embeds it here once it "
                "does.", ""]
    out, fenced = [], False
    for line in path.read_text().splitlines():
        fenced ^= line.lstrip().startswith("```")
        # Its headings sit under this section's `##`, so push them two levels down.
        out.append("##" + line if not fenced and line.startswith("#") else line)
    return out + [""]


def render(spec: IsaSpec, root: Path) -> str:
    major, minor = spec.version_tuple
    ob = f"{spec.opcode_lsb + spec.opcode_width - 1}:{spec.opcode_lsb}"
    out = [f"<!-- {banner(spec)} -->", "",
           f"# {spec.name.upper()} instruction set reference, version {spec.version}", "",
           "## Overview", "",
           f"- Instruction words are {spec.word_bits} bits ({spec.word_bytes} bytes), "
           f"{byte_order(spec)}-endian: bit 0 is the least significant bit of the first byte.",
           f"- The opcode is bits [{ob}]; every other field's position depends on the opcode.",
           "- Bits no field covers are reserved and must be zero: decoders reject the word.",
           "- A *split* field has its bits in more than one run of the word, listed low part "
           "first with the value bits each holds (`91:84 [7:0], 102 [8]`), as RISC-V splits "
           f"its immediates. Version {spec.version} widened fields so: each kept its "
           f"{spec.base_version or spec.version} bits as its low part and took its high part "
           "from bits reserved there, so a word whose high parts are zero is the "
           f"{spec.base_version or spec.version} word byte for byte, and a program container "
           "records the oldest version its words need. In `rtl/npu_isa.vh` a split field's "
           "`F_<INSN>_<FIELD>`, `_LSB` and `_W` stay its first part (what the rtl/ units, "
           "built for the base ranges, read) and `F_<INSN>_<FIELD>_FULL`, `_FULL_W` and "
           "`_P<i>_LSB`/`_P<i>_W` give the whole field; `npusim.hw.rtl_params.rtl_target` "
           "refuses Targets past the base ranges for the RTL.",
           f"- Version {major}.{minor}; the Verilog header `rtl/npu_isa.vh` exports it as "
           "`ISA_VERSION_MAJOR`/`ISA_VERSION_MINOR`.",
           "- Operand values are checked against their range when encoding and decoding; a "
           "*target limit* is a further bound from the Target, checked by the assembler.", ""]
    classes = spec.classes()
    by_cls = {c: [i for i in spec.instructions if i.cls == c] for c in classes}
    out += _table(["class", "instructions"],
                  [[c, ", ".join(f"`{i.mnemonic}`" for i in by_cls[c])] for c in classes]) + [""]
    units: dict[str, list[str]] = {}
    for ins in spec.instructions:
        units.setdefault(unit_text(ins), []).append(f"`{ins.mnemonic}`")
    out += ["Executing units (each has an in-order queue; `dispatch` is the fetch stage):", ""]
    out += _table(["unit", "instructions"], [[u, ", ".join(m)] for u, m in units.items()]) + [""]
    out += ["## Instructions", ""]
    for c in classes:
        out += [f"### {c.upper()} class", ""]
        for ins in by_cls[c]:
            out += _instruction(spec, ins)
    out += ["## Enums", ""]
    for e in spec.enums.values():
        out += [f"### `{e.name}`", "", _esc(e.doc), ""]
        out += _table(["name", "value"], [[f"`{k}`", str(v)] for k, v in e.values.items()]) + [""]
    out += ["## Buffer element types", "",
            "What one element of each SRAM buffer is, by the Target's datapath `-dtype` "
            "(numpy names); the Target's element sizes and the simulator's buffers follow.", ""]
    out += _table(["buffer", *spec.dtypes, "holds"],
                  [[f"`{b.name}`", *(b.elem_types[d] for d in spec.dtypes), _esc(b.doc)]
                   for b in spec.buffers.values()]) + [""]
    out += ["## Configuration registers", "",
            "Written by `cfg` to the queue of a unit of the owner class; reset values hold until "
            "the first write.", ""]
    out += _table(["register", "index", "owner", "reset", "range", "meaning"],
                  [[f"`{r.name}`", str(r.index), r.unit, str(r.reset),
                    f"{r.range[0]}..{r.range[1]}", _esc(r.doc)]
                   for r in spec.registers.values()]) + [""]
    sem = importlib.import_module(spec.semantics_module)
    out += ["## Semantic rules", "", f"From `{spec.semantics_module}`, the reference "
            "semantics every backend and the RTL are checked against:", "",
            inspect.getdoc(sem), ""]
    flows = spec.dataflow_names
    banks = tuple(spec.weight_buffers)  # weight-bank counts past 1 ([weight_buffers])
    rules = list(dict.fromkeys(i.timing_for(d, b) for i in spec.instructions for d in flows
                               for b in (1, *banks)))

    def users(rule: str) -> str:  # instructions naming `rule`, with the dataflows that choose it
        out = []
        for i in spec.instructions:
            on = [d for d in flows if i.timing_for(d) == rule]
            if on:
                out.append(f"`{i.mnemonic}`" + ("" if len(on) == len(flows)
                                                 else f" (-dataflow={'/'.join(on)})"))
            out += [f"`{i.mnemonic}` (-weight-buffers={b})" for b in banks
                    if rule not in (i.timing_for(d) for d in flows)
                    and rule in (i.timing_for(d, b) for d in flows)]
        return ", ".join(out)
    out += ["## Timing rules", "",
            "Uncontended cycles an instruction occupies its unit, from the spec's `[timing]` "
            "table; `isa.timing` implements them, one function per rule, found through each "
            "instruction's `timing` key by the simulator and the compiler's cost model alike "
            "(checked by tests/npusim/test_timing_contract.py), and the RTL is checked against "
            "the model. "
            "Symbols: R, C array rows/cols; L vector lanes; P vector pipeline depth; S DMA setup; "
            "Lat DRAM latency; BW DRAM bytes per cycle; F DMA zero-fill elements per cycle "
            "(dma-fill-lanes); other names are instruction fields or named in the notes.", ""]
    out += _table(["rule", "cycles", "instructions", "notes"],
                  [[f"`{r}`", f"`{spec.timing[r].cycles}`",
                    users(r), _esc(spec.timing[r].doc)]
                   for r in rules]) + [""]
    out += ["## Dataflows", "",
            "The systolic array's dataflow is the Target's `-dataflow` (the first is the "
            "default). The instruction entries above carry the first one's timing keys and "
            "Target limits; the others replace these (`[dataflow]` in the spec):", ""]
    out += _table(["dataflow", "cycle rules used instead", "Target limits changed", "meaning"],
                  [[f"`{d.name}`",
                    ", ".join(f"`{a}` -> `{b}`" for a, b in d.timing.items()) or "-",
                    ", ".join(f"`{k}`: {f'`{v}`' if v else 'none'}"
                              for k, v in d.target_max.items()) or "-",
                    _esc(d.doc)] for d in spec.dataflows.values()]) + [""]
    if banks:
        out += ["## Weight banks", "",
                "The PEs' weight registers are the Target's `-weight-buffers` (1 by default); "
                "a larger count replaces these cycle rules (`[weight_buffers]` in the spec):", ""]
        out += _table(["weight-buffers", "cycle rules used instead", "meaning"],
                      [[str(b), ", ".join(f"`{x}` -> `{y}`" for x, y in t["timing"].items()),
                        _esc(t["doc"])] for b, t in spec.weight_buffers.items()]) + [""]
    out += ["## Transformer instructions", ""] + _assembly(root, TRANSFORMER_DOC)
    out += ["## Assembly syntax", ""] + _assembly(root)
    return "\n".join(out).rstrip("\n") + "\n"
