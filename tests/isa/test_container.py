"""Program container: exact layout, save/load, refusal of foreign, stale, short, corrupt files."""

import json
import struct
import zlib

import pytest

from isa.asm import ContainerError, Program, TensorDecl, assemble
from isa.codec import encode_fields, instruction
from isa.errors import IsaError
from isa.spec import load_spec

SRC = """
.tensor A, dram=0x40, shape=4x4, dtype=int8
start: load chan=0, sram=ibuf[0], dram=A, rows=4, cols=4, stride=4
halt
.core 1
nop
"""


@pytest.fixture
def prog():
    return assemble(SRC, filename="p.s", target="npu-edge -num-cores=2")


def test_layout_is_exactly_as_documented(prog):
    data = prog.to_bytes()
    magic, version, major, minor, meta_len = struct.unpack_from("<8sHBBI", data)
    # the oldest ISA its words need: none sets a split field's high part, so 1.0
    assert (magic, version, (major, minor)) == (b"NPUPROG\0", 1, (1, 0))
    meta = json.loads(data[16:16 + meta_len])
    assert meta == {"target": "npu-edge -num-cores=2", "source": "p.s", "num_cores": 2,
                    "word_counts": [2, 1],
                    "tensors": {"A": {"dram": 0x40, "shape": [4, 4], "dtype": "int8"}},
                    "labels": {"0": {"start": 0}}}
    words = data[16 + meta_len:-4]
    assert len(words) == 3 * 16
    assert [int.from_bytes(words[i:i + 16], "little") for i in range(0, 48, 16)] == \
        prog.cores[0] + prog.cores[1]
    assert struct.unpack("<I", data[-4:])[0] == zlib.crc32(data[:-4])
    assert len(data) == 16 + meta_len + 48 + 4


def test_save_load_and_decoded_once(prog, tmp_path):
    path = tmp_path / "p.bin"
    assert prog.save(path) == path.stat().st_size
    loaded = Program.load(path)
    assert loaded == prog and loaded.to_bytes() == prog.to_bytes()
    assert loaded.instructions(1) is loaded.instructions(1)
    assert [i.mnemonic for i in loaded.instructions(0)] == ["load", "halt"]
    assert loaded.tensors["A"] == TensorDecl(0x40, (4, 4), "int8")
    with pytest.raises(IndexError, match="core 2 out of range 0..1"):
        loaded.instructions(2)


def test_from_instructions():
    p = Program.from_instructions([[instruction("nop"), instruction("halt")]], target="npu-tiny")
    assert Program.from_bytes(p.to_bytes()) == p
    assert [i.mnemonic for i in p.instructions(0)] == ["nop", "halt"]


def refuse(data: bytes) -> str:
    with pytest.raises(ContainerError) as e:
        Program.from_bytes(data, name="x.bin")
    assert isinstance(e.value, IsaError)
    text = str(e.value)
    assert "\n" not in text
    return text


def test_bad_magic():
    text = refuse(b"\x7fELF" + bytes(40))
    assert text.startswith("x.bin is not an npusim program (bad magic b'\\x7fELF")


def test_other_isa_version(prog):
    data = bytearray(prog.to_bytes())
    data[10:12] = bytes([2, 0])
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    major, minor = load_spec().version_tuple
    assert refuse(bytes(data)) == (f"x.bin: built for ISA 2.0, this npusim implements "
                                   f"{major}.{minor}; reassemble it")


def test_a_program_records_the_oldest_isa_its_words_need(prog):
    """A 1.1 word (an address above 2^20, in a split field's high part) makes it 1.1; a
    1.0 program is 1.0 and loads; a newer minor or another major is refused."""
    assert (prog.isa_version, load_spec().version) == ("1.0", "1.1")
    high = encode_fields("load", sram=1 << 22, rows=1, cols=1)
    wide = Program(cores=[[high, *prog.cores[0][1:]], prog.cores[1]], target=prog.target,
                   tensors=prog.tensors, labels=prog.labels, source=prog.source)
    assert wide.isa_version == "1.1"
    assert struct.unpack_from("<8sHBBI", wide.to_bytes())[2:4] == (1, 1)
    assert Program.from_bytes(wide.to_bytes()).cores == wide.cores
    assert Program.from_bytes(prog.to_bytes()).cores == prog.cores  # 1.0 reads in 1.1
    for major, minor in ((1, 2), (0, 9)):
        data = bytearray(prog.to_bytes())
        data[10:12] = bytes([major, minor])
        data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
        assert refuse(bytes(data)) == (f"x.bin: built for ISA {major}.{minor}, this npusim "
                                       f"implements 1.1; reassemble it")


def test_other_container_version(prog):
    data = bytearray(prog.to_bytes())
    data[8:10] = struct.pack("<H", 7)
    assert "container version 7, this npusim reads version 1" in refuse(bytes(data))


@pytest.mark.parametrize("cut", [0, 5, 19, 30, -20, -1])
def test_truncated(prog, cut):
    data = prog.to_bytes()
    short = data[:cut] if cut >= 0 else data[:len(data) + cut]
    text = refuse(short)
    assert text.startswith("x.bin: truncated: expected ")
    assert text.endswith(f" bytes, got {len(short)}")
    if cut < 0:  # the metadata is intact, so the exact size is known
        assert f"expected {len(data)} bytes" in text


@pytest.mark.parametrize("where", ["meta", "word", "crc"])
def test_corrupted_byte(prog, where):
    data = bytearray(prog.to_bytes())
    meta_len = struct.unpack_from("<I", data, 12)[0]
    index = {"meta": 22, "word": 16 + meta_len + 5, "crc": len(data) - 1}[where]
    data[index] ^= 0x01
    assert refuse(bytes(data)).startswith("x.bin: corrupted: checksum mismatch (stored 0x")


def test_trailing_bytes(prog):
    assert "corrupted: 3 bytes after the checksum" in refuse(prog.to_bytes() + b"abc")


def test_illegal_word_with_a_valid_checksum():
    text = refuse(Program(cores=[[1, 0xFF]]).to_bytes())
    assert text.startswith("x.bin: core 0 instruction 1: illegal instruction: unknown opcode 0xff")


def test_label_outside_the_program_is_refused():
    assert "label 'x' at core 0 index 5 is outside" in refuse(
        Program(cores=[[1]], labels={0: {"x": 5}}).to_bytes())


def test_load_names_the_path(tmp_path):
    path = tmp_path / "junk.bin"
    path.write_bytes(b"hello world, not a program")
    with pytest.raises(ContainerError, match=r"junk\.bin is not an npusim program"):
        Program.load(path)


def with_meta(meta: dict, words: list[int]) -> bytes:
    """A container whose checksum is right but whose metadata says `meta` (a crafted file)."""
    raw = json.dumps(meta).encode()
    major, minor = load_spec().version_tuple
    body = struct.pack("<8sHBBI", b"NPUPROG\0", 1, major, minor, len(raw)) + raw
    body += b"".join(w.to_bytes(16, "little") for w in words)
    return body + struct.pack("<I", zlib.crc32(body))


HALT = 1  # the halt opcode's word, as test_illegal_word_with_a_valid_checksum uses it


@pytest.mark.parametrize("meta, words, part", [
    ({"word_counts": []}, [], "word_counts [] needs one count >= 0 per core, at least one core"),
    ({"word_counts": [-1, 2]}, [HALT], "word_counts [-1, 2] needs one count >= 0 per core"),
    ({"word_counts": [1], "target": 5}, [HALT], "corrupted: target 5 is not a string"),
    ({"word_counts": [1], "source": []}, [HALT], "corrupted: source [] is not a string"),
    ({"word_counts": [1], "tensors": {"A": {"dram": -5, "shape": [4], "dtype": "int8"}}},
     [HALT], "tensor 'A' at dram=-5 with shape [4]; a tensor needs an address >= 0"),
    ({"word_counts": [1], "tensors": {"A": {"dram": 0, "shape": [4, 0], "dtype": "int8"}}},
     [HALT], "tensor 'A' at dram=0 with shape [4, 0]"),
    ({"word_counts": [1], "tensors": {"A": {"dram": 0, "shape": ["4"], "dtype": "int8"}}},
     [HALT], "shape ['4']; a tensor needs an address >= 0 and positive integer dimensions"),
    ({"word_counts": [1], "tensors": {"A": {"dram": 0, "shape": [], "dtype": "int8"}}},
     [HALT], "tensor 'A' at dram=0 with shape []"),
])
def test_crafted_metadata_is_refused(meta, words, part):
    assert part in refuse(with_meta(meta, words))


def test_crafted_metadata_helper_builds_a_loadable_file():
    prog = Program.from_bytes(with_meta({"word_counts": [1], "target": "npu-tiny"}, [HALT]))
    assert prog.target == "npu-tiny" and prog.instructions(0)[0].mnemonic == "halt"
