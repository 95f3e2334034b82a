"""Signatures: the bytes a test leaves in its SIG region, as 32-bit little-endian words, their
file format (RISCOF's: one 8-digit hex word a line, lowest address first) and the diff that
names, for each differing word, the instruction that wrote its expected value."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from isa.asm import format_instruction
from isa.errors import NpusimError
from isa.files import write_atomic

WORD_BYTES = 4


class SignatureError(NpusimError):
    """A signature file or buffer that is not a whole number of hex words, or the wrong size."""


def words(data: bytes) -> list[int]:
    """The little-endian 32-bit words of `data` (a multiple of 4 bytes)."""
    if len(data) % WORD_BYTES:
        raise SignatureError(f"a signature is whole 32-bit words; got {len(data)} bytes")
    return np.frombuffer(bytes(data), "<u4").tolist()


def to_text(data: bytes) -> str:
    return "".join(f"{w:08x}\n" for w in words(data))


def from_text(text: str, where: str = "signature") -> bytes:
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            value = int(line, 16)
        except ValueError:
            raise SignatureError(f"{where}:{n}: '{line[:20]}' is not a hex word; a signature "
                                 "file holds one 8-digit hex word a line") from None
        if not 0 <= value < 1 << 32:
            raise SignatureError(f"{where}:{n}: {line} does not fit 32 bits")
        out.append(value)
    return np.asarray(out, "<u4").tobytes()


def write(path, data: bytes) -> None:
    write_atomic(path, to_text(data))


def read(path) -> bytes:
    path = Path(path)
    if not path.exists():
        raise SignatureError(f"no signature file {path}; the DUT must write one hex word a line")
    return from_text(path.read_text(), str(path))


@dataclass(frozen=True)
class WordDiff:
    """One differing word: its index and byte address, both values, who wrote the expected."""

    word: int
    address: int
    expected: int
    got: int | None
    writer: str           # "[core0 #7] vrequant dst=obuf[0x0], ..." or "(input data)"
    mnemonic: str | None

    def text(self) -> str:
        got = "missing" if self.got is None else f"{self.got:08x}"
        return (f"word {self.word} @ {self.address:#x}: expected {self.expected:08x}, got {got}"
                f"  <- {self.writer}")


def writer_of(byte_writers: np.ndarray, instructions: dict) -> tuple[str, str | None]:
    """The instruction that wrote most of a word's bytes (ids from reference.instr_id)."""
    ids = [int(i) for i in byte_writers if i >= 0]
    if not ids:
        return ("(input data: no instruction wrote this word)" if np.any(byte_writers == -2)
                else "(never written)"), None
    ident = max(set(ids), key=ids.count)
    core, index, instr = instructions[ident]
    return f"[core{core} #{index}] {format_instruction(instr)}", instr.mnemonic


def diff(expected: bytes, got: bytes, base: int, byte_writers: np.ndarray, instructions: dict,
         limit: int = 4) -> tuple[int, list[WordDiff]]:
    """(number of differing words, the first `limit` of them) between two signatures; a
    signature shorter than expected counts its missing words as differing."""
    want = words(expected)
    have = words(got[:len(got) - len(got) % WORD_BYTES]) if got else []
    bad = [i for i in range(len(want)) if i >= len(have) or have[i] != want[i]]
    out = []
    for i in bad[:limit]:
        text, mnemonic = writer_of(byte_writers[i * WORD_BYTES:(i + 1) * WORD_BYTES],
                                   instructions)
        out.append(WordDiff(i, base + i * WORD_BYTES, want[i],
                            have[i] if i < len(have) else None, text, mnemonic))
    return len(bad) + max(0, len(have) - len(want)), out
