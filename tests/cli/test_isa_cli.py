"""`npusim isa`: the per-class summary, one instruction's table and bit picture, the JSON contract, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from isa import encode_fields
from isa.spec import load_spec
from cli_helpers import run

SPEC = load_spec()


def test_summary_has_one_line_per_instruction_grouped_by_class(capsys):
    code, out, err = run(capsys, "isa")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith(f"NPU ISA v{SPEC.version}: 128-bit little-endian words, "
                               f"opcode bits [7:0], {len(SPEC.instructions)} instructions")
    headers = [ln for ln in lines if ln and not ln.startswith(" ")][1:]
    assert headers == SPEC.classes() + ["enums"]
    for ins in SPEC.instructions:
        mine = [ln for ln in lines if ln.split()[:2] == [ins.mnemonic, f"{ins.opcode:#04x}"]]
        assert len(mine) == 1, ins.mnemonic
        assert mine[0].endswith(ins.semantics)
        # the line sits under its class header
        header = max(i for i, ln in enumerate(lines[:lines.index(mine[0])]) if ln in headers)
        assert lines[header] == ins.cls
    gemm = SPEC.by_mnemonic["gemm"]
    assert f"  gemm      {gemm.opcode:#04x}  matrix    abuf[m x n] (+)= ibuf[m x k]" in out
    assert "  buf: ibuf=0 wbuf=1 abuf=2 obuf=3" in lines


def test_one_instruction_shows_header_timing_and_field_table(capsys):
    code, out, err = run(capsys, "isa", "WAIT")  # mnemonics are case-insensitive
    assert (code, err) == (0, "")
    lines = out.splitlines()
    op = SPEC.by_mnemonic["wait"].opcode
    assert lines[:7] == [
        f"wait  opcode {op:#04x}  class sync  unit named by field 'unit'",
        "  The named unit blocks until semaphore sem is positive, then decrements it.",
        "  timing: sync = 1 cycle",
        "",
        "  bits   field  type       range  target limit  meaning",
        "  16:12  sem    unsigned   0..31  semaphore     semaphore index",
        "  11:8   unit   enum:unit  0..15  unit          unit that waits",
    ]


def _boundaries(label_rows: list[str], word_bits: int) -> set[int]:
    """Bit numbers where a segment starts (its lsb), read back from the `|` columns."""
    starts = set()
    for r, row in enumerate(label_rows):
        top = word_bits - 1 - 32 * r
        for col, ch in enumerate(row):
            if ch == "|" and col > 0:
                starts.add(top - col // 3 + 1)  # the bar closes the cell left of it
    return starts


@pytest.mark.parametrize("mnemonic", ["gemm", "load", "vrequant", "cfg", "nop"])
def test_bit_picture_borders_fall_on_field_boundaries(capsys, mnemonic):
    code, out, _ = run(capsys, "isa", mnemonic)
    pic = out.split("\n\n")[-1].splitlines()
    labels = [ln for ln in pic if ln.startswith("|")]
    assert len(labels) == 4 and all(len(ln) == 97 for ln in labels)
    ins = SPEC.by_mnemonic[mnemonic]
    owner = {b: "opcode" for b in range(SPEC.opcode_lsb, SPEC.opcode_lsb + SPEC.opcode_width)}
    for f in ins.fields:  # every part of a split field (ISA 1.1) is the field's
        owner.update({b: f.name for lsb, w in f.parts for b in range(lsb, lsb + w)})
    # a segment starts at every row start and wherever the owning field (or reserved) changes
    expected = {0, 32, 64, 96} | {b for b in range(1, 128) if owner.get(b) != owner.get(b - 1)}
    assert _boundaries(labels, 128) == expected
    bottom = labels[-1]
    assert bottom.endswith("|         opcode        |")
    for f in ins.fields:  # each field shows its name (or a key, or a split part) in its cells
        wide = f.width * 3 - 1 >= len(f.name) and f.lsb // 32 == f.msb // 32
        if wide:
            assert f.name in "".join(labels), f.name


def test_unknown_mnemonic_is_a_one_line_error(capsys):
    code, out, err = run(capsys, "isa", "gem")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("npusim: error: unknown instruction 'gem'; did you mean 'gemm'? known: nop,")


def test_json_is_the_whole_spec_and_enough_to_encode(capsys):
    code, out, _ = run(capsys, "isa", "--json")
    doc = json.loads(out)
    assert code == 0
    assert (doc["schema"], doc["isa"], doc["version"], doc["word_bits"], doc["byte_order"]) == \
        (1, "npu", SPEC.version, 128, "little")
    assert doc["enums"]["buf"]["values"] == {"ibuf": 0, "wbuf": 1, "abuf": 2, "obuf": 3}
    assert doc["registers"]["dma_planes"] == {"index": 32, "unit": "dma", "reset": 1,
                                              "range": [1, 4095],
                                              "doc": "planes of a 3-D transfer (1 = 2-D)"}
    assert [i["mnemonic"] for i in doc["instructions"]] == [i.mnemonic for i in SPEC.instructions]
    # A consumer that only reads the JSON packs the same word as the codec.
    values = dict(ibuf=5, wbuf=6, abuf=7, m=300, k=16, n=8, acc=1, wt=1)
    gemm = next(i for i in doc["instructions"] if i["mnemonic"] == "gemm")
    word = gemm["opcode"] << doc["opcode"]["lsb"]
    for f in gemm["fields"]:
        assert f["msb"] - f["lsb"] + 1 == f["width"]
        word |= values[f["name"]] << f["lsb"]
    assert word == encode_fields("gemm", **values)
    vclip_lo = next(f for i in doc["instructions"] if i["mnemonic"] == "vclip"
                    for f in i["fields"] if f["name"] == "lo")
    assert (vclip_lo["signed"], vclip_lo["range"]) == (True, [-32768, 32767])


def test_json_of_one_instruction_is_its_entry_in_the_whole(capsys):
    _, whole, _ = run(capsys, "isa", "--json")
    _, one, _ = run(capsys, "isa", "load", "--json")
    entry = json.loads(one)
    assert entry in json.loads(whole)["instructions"]
    assert (entry["unit"], entry["unit_field"], entry["timing"]) == (None, "chan", "dma")


def test_console_entry_point_exits_2_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "npusim", "isa", "frobnicate"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("npusim: error: unknown instruction 'frobnicate'")
