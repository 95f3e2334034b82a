"""Generated files (Verilog header, ISA reference, conformance list) are current, and no opcode is typed elsewhere."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from isa.gen import OUTPUTS, banner, render_all
from isa.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec()
COMMENT = {".vh": "// {}", ".md": "<!-- {} -->", ".json": '{{"_comment": "{}",'}


def gen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "isa.gen", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_committed_files_match_a_fresh_generation(tmp_path):
    proc = gen("--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    for rel in OUTPUTS:
        fresh, committed = (tmp_path / rel).read_text(), (ROOT / rel).read_text()
        assert committed == fresh, f"{rel} is stale: run python -m isa.gen"


@pytest.mark.parametrize("rel", sorted(OUTPUTS))
def test_first_line_says_generated_do_not_edit(rel):
    first = (ROOT / rel).read_text().splitlines()[0]
    assert first == COMMENT[Path(rel).suffix].format(banner(SPEC))
    assert "generated from isa/npu_isa.toml by python -m isa.gen — do not edit" in first


def test_check_lists_every_stale_and_missing_file(tmp_path):
    assert gen("--out", str(tmp_path)).returncode == 0
    assert gen("--check", "--out", str(tmp_path)).returncode == 0
    vh = tmp_path / "rtl/npu_isa.vh"
    lines = vh.read_text().splitlines(keepends=True)
    vh.write_text("".join(lines[:10] + ["// hand edit\n"] + lines[10:]))
    (tmp_path / "isa/conformance.json").unlink()
    proc = gen("--check", "--out", str(tmp_path))
    assert proc.returncode == 1
    assert "rtl/npu_isa.vh: stale (+0 -1 lines, first difference at line 11)" in proc.stderr
    assert "isa/conformance.json: missing" in proc.stderr
    assert "docs/isa.md" not in proc.stderr
    assert "run python -m isa.gen" in proc.stderr


def test_generation_is_deterministic():
    assert render_all() == render_all()


def _repo_files() -> list[str]:
    proc = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        pytest.skip(f"git ls-files failed: {proc.stderr.strip()}")
    return proc.stdout.split()


OPCODE_ASSIGN = "opcode = " + "0x"


def test_no_opcode_number_typed_outside_isa():
    allowed = set(OUTPUTS) - {"isa/conformance.json"}
    # `<mnemonic> ... 0x<its opcode>` (a table, a dict, a define): a mnemonic with its own
    # opcode nearby. The literals are assembled here so this file does not trip its own check.
    near = [re.compile(rf"(?i)\b{i.mnemonic}\b[^\n]{{0,16}}\b0x0*{i.opcode:x}\b")
            for i in SPEC.instructions]
    offenders = []
    for rel in _repo_files():
        if rel.startswith("isa/") or rel in allowed or not (ROOT / rel).is_file():
            continue
        try:
            text = (ROOT / rel).read_text()
        except (UnicodeDecodeError, OSError):
            continue  # binary files carry encoded words, not typed numbers
        if OPCODE_ASSIGN in text:
            offenders.append(f"{rel}: {OPCODE_ASSIGN!r}")
        offenders += [f"{rel}: {m.group(0)!r}" for p in near for m in p.finditer(text)]
    assert not offenders, ("opcode numbers typed outside isa/ (read them from isa.load_spec() "
                           "or rtl/npu_isa.vh):\n" + "\n".join(offenders))
