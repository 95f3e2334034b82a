"""`npusim targets`: the tag listing, resolved targets (strings, tag + overrides, dicts), JSON, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from isa.target import TARGET_TAGS, Target
from cli_helpers import run


def test_listing_has_one_line_per_tag_with_key_attributes(capsys):
    code, out, err = run(capsys, "targets")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == ["tag", "kind", "key", "attributes", "description"]
    assert [ln.split()[0] for ln in lines[1:]] == list(TARGET_TAGS)
    tiny = next(ln for ln in lines if ln.startswith("npu-tiny "))
    assert tiny.split()[1:6] == ["npu", "-array=4x4", "-vector-lanes=4", "-dma-engines=1",
                                 "-num-cores=1"]
    assert tiny.endswith(TARGET_TAGS["npu-tiny"].description)
    server = next(ln for ln in lines if ln.startswith("npu-server "))
    assert "-array=32x32" in server and "-num-cores=4" in server


def test_listing_json_names_every_tag(capsys):
    code, out, _ = run(capsys, "targets", "--json")
    doc = json.loads(out)
    assert [d["name"] for d in doc] == list(TARGET_TAGS)
    tiny = doc[0]
    assert (tiny["kind"], tiny["tag"], tiny["attrs"]["array"]) == ("npu", "npu-tiny", "4x4")


def test_tag_shows_attributes_and_derived_values(capsys):
    code, out, err = run(capsys, "targets", "npu-tiny")
    t = Target("npu-tiny")
    lines = out.splitlines()
    assert (code, err) == (0, "")
    assert lines[:3] == [f"target  {t}", "kind    npu (simulated NPU: systolic array + vector unit)",
                         "tag     npu-tiny"]
    assert lines[4].split()[:3] == ["array", "4x4", "PEs"]
    assert "  dram-bw              4      B/cycle   DRAM bandwidth shared by all DMA channels and cores" in lines
    # 4 KiB of int8 is 4096 elements; 16 KiB of int32 accumulators is also 4096
    assert "  buffer_elems          ibuf=4096 wbuf=4096 abuf=4096 obuf=4096" in lines
    assert "  peak_macs_per_cycle   16" in lines


@pytest.mark.parametrize("argv", [["npu", "-array=8x8", "-dma-engines=1"],
                                  ["npu -array=8x8 -dma-engines=1"],
                                  ['{"kind": "npu", "array": "8x8", "dma-engines": 1}']])
def test_target_string_tokens_or_dict_resolve_the_same(capsys, argv):
    code, out, err = run(capsys, "targets", *argv, "--json")
    doc = json.loads(out)
    assert (code, err) == (0, "")
    assert set(doc) == {"kind", "tag", "target", "attrs", "derived", "area_mm2", "area_breakdown"}
    assert (doc["kind"], doc["tag"]) == ("npu", None)
    assert (doc["attrs"]["array"], doc["attrs"]["dma-engines"], doc["attrs"]["vector-lanes"]) == \
        ("8x8", 1, 16)
    assert (doc["derived"]["array_rows"], doc["derived"]["peak_macs_per_cycle"]) == (8, 64)
    expected = Target("npu", array=(8, 8), dma_engines=1)
    assert Target.from_string(doc["target"]) == expected
    assert Target.from_dict({"kind": doc["kind"], **doc["attrs"]}) == expected


def test_npu_targets_print_their_area(capsys):
    from npusim.hw.area import area_breakdown
    code, out, _ = run(capsys, "targets", "npu-edge", "-array=32x32", "--json")
    doc = json.loads(out)
    parts = area_breakdown("npu-edge -array=32x32")
    assert code == 0 and doc["area_breakdown"] == pytest.approx(parts)
    assert doc["area_mm2"] == pytest.approx(sum(parts.values()))
    code, out, _ = run(capsys, "targets", "npu-edge")
    lines = out.splitlines()
    total = sum(area_breakdown("npu-edge").values())
    assert code == 0 and f"area    {total:.3f} mm2 at 45 nm" in out
    assert any(ln.split()[:1] == ["sram_abuf"] and ln.split()[2] == "mm2" for ln in lines)
    code, out, _ = run(capsys, "targets", "cpu-host", "--json")
    assert code == 0 and "area_mm2" not in json.loads(out)


def test_tag_with_overrides_keeps_the_tag(capsys):
    code, out, _ = run(capsys, "targets", "npu-edge", "-num-cores=2", "--json")
    doc = json.loads(out)
    assert (code, doc["tag"], doc["attrs"]["num-cores"]) == (0, "npu-edge", 2)
    assert doc["derived"]["peak_macs_per_cycle"] == 16 * 16 * 2
    assert doc["derived"]["buffer_elems"] == dict(Target("npu-edge").derived.buffer_elems)


@pytest.mark.parametrize("argv,message", [
    (["npu", "-arry=8x8"], "npusim: error: unknown npu attribute 'arry'; did you mean 'array'?"),
    (["npu-edge", "-num-cores=99"],
     "npusim: error: npu attribute 'num-cores' value '99' out of range: 1..16"),
    (["npu-tinny"], "npusim: error: unknown target kind 'npu-tinny'"),
    (["npu", "array=8x8"], "npusim: error: malformed target option 'array=8x8'"),
    (["{not json"], "npusim: error: target '{not json' is not valid JSON"),
    (['{"kind": 5}'], "npusim: error: a target kind or tag is a name such as 'npu'"),
])
def test_bad_targets_are_one_line_errors(capsys, argv, message):
    code, out, err = run(capsys, "targets", *argv)
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1


def test_console_entry_point_exits_2_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "npusim", "targets", "npu", "-array=999x999"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("npusim: error: npu attribute 'array'")
