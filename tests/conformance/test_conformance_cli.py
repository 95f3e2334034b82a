"""`npusim conformance list|coverage|run`: JSON fields, JUnit XML, a failing plugin's diff."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from npusim.cli.main import main

HERE = Path(__file__).resolve().parent


def test_list_json_has_every_test_with_labels(capsys):
    assert main(["conformance", "list", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tests"] >= 300 and len(out["items"]) == out["tests"]
    assert all(item["labels"] for item in out["items"])


def test_run_json_and_junit(tmp_path, capsys):
    junit = tmp_path / "conf.xml"
    code = main(["conformance", "run", "--dut", "model", "--only", "vbias/*", "--json",
                 "--junit", str(junit)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["passed"] == out["tests"] >= 6 and out["failed"] == 0 and out["skipped"] == 0
    assert 0 < out["coverage"] < 1 and out["failures"] == []
    suite = ET.parse(junit).getroot().find("testsuite")
    assert int(suite.get("tests")) == out["tests"] and suite.get("failures") == "0"


def test_run_a_plugin_file_that_fails(capsys):
    plugin = f"{HERE / 'conformance_mutants.py'}:AccumulateAsOverwrite"
    code = main(["conformance", "run", "--dut", plugin, "--only", "gemm/accumulate-chain"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL gemm/accumulate-chain" in out and "expected" in out and "gemm ibuf[" in out


def test_timing_needs_a_dut_with_cycles(capsys):
    assert main(["conformance", "run", "--dut", "model", "--timing", "--only", "vadd/len-1"]) == 2
    assert "--timing needs a DUT that reports cycles" in capsys.readouterr().err


def test_coverage_report_lists_bins(capsys):
    assert main(["conformance", "coverage", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fraction"] == 1.0 and out["instructions"] == 1.0 and out["enum_values"] == 1.0
    assert any(r["instruction"] == "vrequant" for r in out["table"])
