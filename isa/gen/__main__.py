"""`python -m isa.gen [--check] [--out DIR]`: write or check every file generated from the ISA spec."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from isa.gen import REPO_ROOT, render_all


def _summary(old: str, new: str) -> str:
    """One line: lines added/removed and where the first difference is."""
    a, b = old.splitlines(), new.splitlines()
    added = removed = 0
    first = None
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        first = i1 + 1 if first is None else first
        removed += i2 - i1
        added += j2 - j1
    return f"+{added} -{removed} lines, first difference at line {first}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m isa.gen", description=__doc__)
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 listing every stale or missing file")
    p.add_argument("--out", type=Path, default=REPO_ROOT,
                   help="root to write under (default: the repo root)")
    args = p.parse_args(argv)
    stale = []
    # Inputs (docs/assembly.md) are always read from the repo, whatever --out says.
    for rel, text in render_all(root=REPO_ROOT).items():
        path = args.out / rel
        old = path.read_text() if path.exists() else None
        if args.check:
            if old is None:
                stale.append(f"{rel}: missing")
            elif old != text:
                stale.append(f"{rel}: stale ({_summary(old, text)})")
            continue
        if old != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {rel}")
    if stale:
        print("\n".join(stale) + "\nrun python -m isa.gen", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
