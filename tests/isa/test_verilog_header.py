"""rtl/npu_isa.vh compiles with Icarus (-g2005) when included in two modules, and its values equal the spec."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from isa import encode_fields
from isa.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec()

pytestmark = pytest.mark.skipif(shutil.which("iverilog") is None or shutil.which("vvp") is None,
                                reason="iverilog/vvp not installed (make test installs them)")


def _expected() -> dict[str, int]:
    """Every localparam name the RTL relies on, with its value from the spec."""
    major, minor = SPEC.version_tuple
    exp = {"ISA_WORD_BITS": SPEC.word_bits, "ISA_VERSION_MAJOR": major,
           "ISA_VERSION_MINOR": minor, "OPCODE_LSB": SPEC.opcode_lsb, "OPCODE_W": SPEC.opcode_width}
    for ins in SPEC.instructions:
        exp[f"OP_{ins.mnemonic.upper()}"] = ins.opcode
        for f in ins.fields:
            stem = f"{ins.mnemonic}_{f.name}".upper()
            # _LSB/_W: the first part (the 1.0 field); a split field's whole width and parts
            exp[f"{stem}_LSB"], exp[f"{stem}_W"] = f.parts[0]
            if f.split:
                exp[f"{stem}_FULL_W"] = f.width
                for i, (lsb, w) in enumerate(f.parts[1:], 1):
                    exp[f"{stem}_P{i}_LSB"], exp[f"{stem}_P{i}_W"] = lsb, w
    for enum in SPEC.enums.values():
        exp.update({f"{enum.name}_{k}".upper(): v for k, v in enum.values.items()})
    exp.update({f"REG_{r.name}_RESET".upper(): r.reset for r in SPEC.registers.values()})
    return exp


def _words() -> list[tuple[str, int]]:
    """One encoded word per instruction, fields drawn at random from their legal ranges."""
    rng = random.Random(7)
    out = []
    for ins in SPEC.instructions:
        fields = {f.name: rng.choice(list(SPEC.enums[f.enum].values.values())) if f.enum
                  else rng.randint(*f.legal) for f in ins.fields}
        out.append((ins.mnemonic, encode_fields(ins.mnemonic, **fields)))
    return out


def _testbench(expected: dict[str, int], words: list[tuple[str, int]]) -> str:
    shows = "\n".join(f'    $display("{n} %0d", {n});' for n in expected)
    extract = []
    for mnemonic, word in words:
        extract.append(f"    w = 128'h{word:032x};")
        extract.append(f'    $display("F_OPCODE.{mnemonic} %0d", `F_OPCODE(w));')
        for f in SPEC.by_mnemonic[mnemonic].fields:
            macro = f"F_{mnemonic}_{f.name}".upper()
            for m in [macro] + ([f"{macro}_FULL"] if f.split else []):
                extract.append(f'    $display("{m}.{mnemonic} %0d", `{m}(w));')
    # Two modules include the header: the localparams must exist in both, the macros once.
    return f"""module decoder(input [127:0] w, output [7:0] op, output [15:0] m);
`include "npu_isa.vh"
  assign op = `F_OPCODE(w);
  assign m = `F_GEMM_M(w);
endmodule

module top;
`include "npu_isa.vh"
  reg [127:0] w;
  wire [7:0] op;
  wire [15:0] m;
  decoder u_dec(.w(w), .op(op), .m(m));
  initial begin
{shows}
{chr(10).join(extract)}
    w = 0;
    w[OPCODE_LSB +: OPCODE_W] = OP_GEMM;
    w[GEMM_M_LSB +: GEMM_M_W] = 16'd300;
    #1 $display("SUBMODULE %0d %0d", op, m);
    w = 0;
    `F_GEMM_K_FULL(w) = 9'd300;  // a split field's macro is an lvalue too
    $display("LVALUE %0d %0d %0d", `F_GEMM_K_FULL(w), `F_GEMM_K(w), w[GEMM_K_P1_LSB]);
    $finish;
  end
endmodule
"""


def test_header_compiles_in_two_modules_and_matches_the_spec(tmp_path):
    expected, words = _expected(), _words()
    (tmp_path / "tb.v").write_text(_testbench(expected, words))
    build = subprocess.run(["iverilog", "-g2005", "-Wall", "-I", str(ROOT / "rtl"), "-o",
                            str(tmp_path / "tb.vvp"), str(tmp_path / "tb.v")],
                           capture_output=True, text=True, timeout=60)
    assert build.returncode == 0, build.stderr
    assert "warning" not in build.stderr.lower(), build.stderr
    run = subprocess.run(["vvp", "-n", str(tmp_path / "tb.vvp")], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    got = dict(line.split(" ", 1) for line in run.stdout.splitlines() if " " in line)
    for name, value in expected.items():
        assert int(got[name]) == value, f"{name}: header says {got[name]}, spec says {value}"
    for mnemonic, word in words:
        ins = SPEC.by_mnemonic[mnemonic]
        assert int(got.pop(f"F_OPCODE.{mnemonic}")) == ins.opcode
        for f in ins.fields:
            macro = f"F_{mnemonic}_{f.name}".upper()
            low = (word >> f.lsb) & ((1 << f.parts[0][1]) - 1)
            assert int(got[f"{macro}.{mnemonic}"]) == low, macro
            if f.split:
                assert int(got[f"{macro}_FULL.{mnemonic}"]) == f.extract(word), macro
    assert got["SUBMODULE"].split() == [str(SPEC.by_mnemonic["gemm"].opcode), "300"]
    assert got["LVALUE"].split() == ["300", str(300 & 255), "1"]


def test_header_declares_no_name_twice():
    text = (ROOT / "rtl" / "npu_isa.vh").read_text()
    names = [line.split()[-3] for line in text.splitlines() if line.startswith("localparam")]
    assert len(names) == len(set(names)) == len(_expected())


def test_the_rtl_takes_only_targets_within_the_base_ranges():
    """The rtl/ units read each split field's first part (F_X, the 1.0 bits): an array past
    255 or a buffer past 2^20 elements is refused for the RTL, not silently truncated."""
    from isa.target import TargetError
    from npusim.hw.rtl_params import base_limits, rtl_target
    assert base_limits() == (255, 1 << 20)
    assert rtl_target("npu -array=32x32 -ibuf-kb=1024").array_rows == 32  # 2^20 int8: fits
    for text, what in (("npu -array=256x256", "array 256x256"),
                       ("npu -ibuf-kb=1025", "ibuf of 1049600 elements")):
        with pytest.raises(TargetError, match=f"RTL implements arrays up to 255x255 and "
                                              f"buffers up to 1048576 elements.*{what}"):
            rtl_target(text)
