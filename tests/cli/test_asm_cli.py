"""`npusim asm` / `npusim disasm`: summaries, outputs, exit codes and one-line errors."""

import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from isa.asm import Program, assemble_file
from cli_helpers import run

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture
def gemm_s(tmp_path):
    return Path(shutil.copy(EXAMPLES / "gemm_tile.s", tmp_path / "gemm_tile.s"))


def test_asm_writes_the_bin_next_to_the_source(capsys, gemm_s):
    code, out, err = run(capsys, "asm", gemm_s)
    bin_path = gemm_s.with_suffix(".bin")
    size = bin_path.stat().st_size
    n = assemble_file(gemm_s).num_instructions
    assert (code, err) == (0, "")
    assert out == f"{bin_path}: {n} instructions, 1 core, target npu-edge, {size} bytes\n"
    assert Program.load(bin_path) == assemble_file(gemm_s)


def test_asm_output_option_and_agreeing_target(capsys, gemm_s, tmp_path):
    out_path = tmp_path / "sub.bin"
    agreeing = "npu -array=16x16 -weight-buffers=2 -depthwise-mode=1"  # npu-edge spelled out
    code, out, _ = run(capsys, "asm", gemm_s, "-o", out_path, "-t", agreeing)
    assert code == 0 and out.startswith(f"{out_path}: ") and out_path.exists()
    assert Program.load(out_path).target == agreeing


def test_disasm_prints_and_writes_canonical_assembly(capsys, gemm_s, tmp_path):
    run(capsys, "asm", gemm_s)
    code, out, err = run(capsys, "disasm", gemm_s.with_suffix(".bin"))
    assert (code, err) == (0, "")
    assert out.splitlines()[1:3] == ['.file "gemm_tile.s"', ".target npu-edge"]
    assert "    gemm ibuf[0x0], wbuf[0x0], abuf[0x0], m=16, k=16, n=16" in out
    out_s = tmp_path / "again.s"
    code, out2, _ = run(capsys, "disasm", gemm_s.with_suffix(".bin"), "-o", out_s, "--no-index")
    assert code == 0 and out2 == "" and "; [" not in out_s.read_text()
    code, _, _ = run(capsys, "asm", out_s, "-o", tmp_path / "again.bin")
    assert (tmp_path / "again.bin").read_bytes() == gemm_s.with_suffix(".bin").read_bytes()


def test_assembly_errors_one_per_line_exit_2(capsys, tmp_path):
    src = tmp_path / "bad.s"
    src.write_text(".target npu-edge\ngemm ibuf[0], wbuf[0], m=1, k=40, n=1\nfoo\n")
    code, out, err = run(capsys, "asm", src)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"{src}:2:29: error: gemm: field 'k' value 40 out of range 1..16 "
        "(array_rows of npu-edge)",
        f"{src}:3:1: error: unknown mnemonic 'foo'; known: nop, halt, cfg, load, store, gemm, "
        "conv, dwconv, vadd, vsub, vmul, vmax, vmin, vrelu, vclip, vshr, vrequant, vbias, "
        "vmaxpool, vsumpool, vcopy, vlut, vrmax, vrsum, vrsub, vrmul, vexp, vrecip, vrsqrt, "
        "signal, wait, barrier, gbarrier"]
    assert not src.with_suffix(".bin").exists()


@pytest.mark.parametrize("argv,message", [
    (["asm", "{tmp}/missing.s"], "npusim: error: cannot read '{tmp}/missing.s': "
                                 "No such file or directory"),
    (["asm", "{gemm}", "-t", "npu-edgy"], "npusim: error: -t 'npu-edgy': unknown target kind "
                                          "'npu-edgy'; did you mean 'npu-edge'?"),
    (["asm", "{gemm}", "-t", "cpu-host"], "is a cpu target"),
    (["asm", "{gemm}", "-t", "npu-edge -num-cores=2"],
     "gemm_tile.s:10:9: error: .target 'npu-edge' conflicts with the target given on the "
     "command line ('npu-edge -num-cores=2')"),
    (["asm", "{gemm}", "-o", "{tmp}/no/such/dir/x.bin"], "npusim: error: cannot write"),
    (["disasm", "{gemm}"], "npusim: error: {gemm} is not an npusim program (bad magic"),
    (["disasm", "{tmp}/missing.bin"], "npusim: error: cannot read '{tmp}/missing.bin'"),
    (["disasm", "{tmp}/short.bin"], "npusim: error: {tmp}/short.bin: truncated: expected"),
    (["asm", "{tmp}/short.bin"], "not UTF-8 text"),
    (["disasm", "{tmp}/v2.bin"], "npusim: error: {tmp}/v2.bin: built for ISA 2.0, this npusim "
                                 "implements 1.1; reassemble it"),
    (["asm", "{tmp}/open.s"], "open.s:1:10: error: '[' at column 10 is never closed"),
])
def test_user_errors_are_one_line_exit_2(capsys, gemm_s, tmp_path, argv, message):
    program = assemble_file(gemm_s).to_bytes()
    (tmp_path / "short.bin").write_bytes(program[:-10])
    v2 = program[:10] + bytes([2, 0]) + program[12:-4]  # ISA major.minor at bytes 10, 11
    (tmp_path / "v2.bin").write_bytes(v2 + struct.pack("<I", zlib.crc32(v2)))
    (tmp_path / "open.s").write_text("gemm ibuf[0, wbuf[0], abuf[0], m=1, k=1, n=1\n")
    fill = {"tmp": tmp_path, "gemm": gemm_s}
    code, out, err = run(capsys, *[a.format(**fill) for a in argv])
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert message.format(**fill) in err


def test_console_script_round_trip(tmp_path):
    """The installed entry point, as a user runs it."""
    src = Path(shutil.copy(EXAMPLES / "two_core_barrier.s", tmp_path / "two.s"))
    cmd = [sys.executable, "-m", "npusim.cli.main"]
    r = subprocess.run(cmd + ["asm", str(src)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and ", 2 cores, target npu-edge -num-cores=2, " in r.stdout
    r = subprocess.run(cmd + ["disasm", str(src.with_suffix(".bin"))], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "\n.core 1\n" in r.stdout
    r = subprocess.run(cmd + ["disasm", str(src)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "bad magic" in r.stderr
