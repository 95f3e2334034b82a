"""isa.files.write_atomic: the new content appears whole under the name, or the old file stays."""

import os

import pytest

from isa.files import write_atomic


def test_writes_bytes_and_text(tmp_path):
    write_atomic(tmp_path / "a.bin", b"\x00\x01")
    write_atomic(tmp_path / "b.txt", "héllo")
    assert (tmp_path / "a.bin").read_bytes() == b"\x00\x01"
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "héllo"
    assert sorted(os.listdir(tmp_path)) == ["a.bin", "b.txt"]  # no temporary left


def test_an_interrupted_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "trace.json"
    path.write_text("old")

    def interrupted(src, dst):
        raise KeyboardInterrupt
    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "new " * 1000)
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["trace.json"]


def test_permissions_are_those_open_gives(tmp_path):
    write_atomic(tmp_path / "f", b"x")
    (tmp_path / "g").write_bytes(b"x")
    assert (tmp_path / "f").stat().st_mode == (tmp_path / "g").stat().st_mode


def test_a_missing_folder_is_an_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "no" / "f", b"x")


def test_write_atomic_writes_a_list_of_pieces_in_turn(tmp_path):
    path = tmp_path / "pieces.bin"
    write_atomic(path, [b"ab", bytearray(b"cd"), memoryview(b"ef")])
    assert path.read_bytes() == b"abcdef"
    assert not list(tmp_path.glob(".*.tmp"))
