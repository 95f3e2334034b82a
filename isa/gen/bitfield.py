"""ASCII bit-field pictures of an instruction word, rows of 32 bits, msb first (RISC-V manual style)."""

from __future__ import annotations

from isa.spec import InstructionSpec

ROW_BITS = 32
CELL = 3  # characters per bit: a 1-bit field still gets a 2-character label


def _segments(ins: InstructionSpec, word_bits: int, opcode: tuple[int, int]):
    """(msb, lsb, name, part_msb, part_lsb, value shift, split) of every segment: the fields'
    parts, the opcode and reserved runs, each cut at row boundaries."""
    # (name, part msb, part lsb, value bit of the part's lsb, whether the field is split)
    named = [("opcode", opcode[0] + opcode[1] - 1, opcode[0], 0, False)]
    for f in ins.fields:
        shift = 0
        for hi, lo in f.slices:
            named.append((f.name, hi, lo, shift, f.split))
            shift += hi - lo + 1
    owner = {}
    for name, hi, lo, shift, split in named:
        for b in range(lo, hi + 1):
            owner[b] = (name, hi, lo, shift, split)
    segs, b = [], word_bits - 1
    while b >= 0:
        own = owner.get(b)
        lo = b
        while lo - 1 >= 0 and owner.get(lo - 1) == own and (lo - 1) % ROW_BITS != ROW_BITS - 1:
            lo -= 1
        segs.append((b, lo) + (own if own else (None, b, lo, 0, False)))
        b = lo - 1
    return segs


def _place(buf: list[str], pos: int, text: str) -> None:
    """Write text at pos if it and a one-space margin are free (boundary numbers may collide)."""
    lo, hi = pos - 1, pos + len(text)
    if pos < 0 or hi > len(buf) or any(c != " " for c in buf[max(lo, 0):min(hi + 1, len(buf))]):
        return
    buf[pos:hi] = text


def picture(ins: InstructionSpec, word_bits: int, opcode: tuple[int, int]) -> list[str]:
    """Lines of the picture, then a key line for fields too narrow to show their names."""
    keys: dict[str, str] = {}
    rows: dict[int, list] = {}
    for seg in _segments(ins, word_bits, opcode):
        rows.setdefault(seg[0] // ROW_BITS, []).append(seg)
    width = ROW_BITS * CELL + 1
    out = []
    for r in sorted(rows, reverse=True):
        top = r * ROW_BITS + ROW_BITS - 1
        col = lambda b: (top - b) * CELL  # noqa: E731  left border of bit b's cell
        nums, border, label = [" "] * width, [" "] * width, [" "] * width
        for hi, lo, name, fhi, flo, shift, split in rows[r]:
            left, inner = col(hi), (hi - lo + 1) * CELL - 1
            border[left:left + inner + 2] = "+" + "-" * inner + "+"
            label[left] = label[left + inner + 1] = "|"
            if name is None:
                full, choices = "", ["reserved", "rsvd", "0"]
            else:
                vhi, vlo = hi - flo + shift, lo - flo + shift  # the value bits shown
                part = f"{name}[{vhi}:{vlo}]" if hi != lo else f"{name}[{vhi}]"
                full = part if (hi, lo) != (fhi, flo) or split else name
                choices = [full, name]
            text = next((c for c in choices if len(c) <= inner), None)
            if text is None:
                text = keys.setdefault(full, chr(ord("a") + len(keys)))
            label[left + 1:left + 1 + inner] = text.center(inner)
            _place(nums, left + 1, str(hi))
            if lo != hi:
                _place(nums, left + inner + 1 - len(str(lo)), str(lo))
        out += ["".join(nums).rstrip(), "".join(border), "".join(label)]
    out.append(out[-2])
    if keys:
        out.append("key: " + ", ".join(f"{k} = {n}" for n, k in keys.items()))
    return out
