"""The hazard tracker's dependencies against a per-element reference: an op follows the last
writer of every element it touches, and a write also follows every reader since that write
(random ranges, so slots met exactly, ranges inside, across and around known segments)."""

import random
from types import SimpleNamespace

import pytest

from compiler.backends.npu.hazards import Tracker
from compiler.errors import CompilerError


def reference(ops) -> list:
    writer, readers, out = {}, {}, []
    for k, (reads, writes) in enumerate(ops):
        deps = set()
        for space, lo, hi in reads:
            for a in range(lo, hi):
                if (space, a) in writer:
                    deps.add(writer[space, a])
        for space, lo, hi in writes:
            for a in range(lo, hi):
                if (space, a) in writer:
                    deps.add(writer[space, a])
                deps.update(readers.get((space, a), ()))
        for space, lo, hi in reads:
            for a in range(lo, hi):
                readers.setdefault((space, a), []).append(k)
        for space, lo, hi in writes:
            for a in range(lo, hi):
                writer[space, a] = k
                readers[space, a] = []
        deps.discard(k)
        out.append(sorted(deps))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_dependencies_match_the_per_element_reference(seed):
    rng = random.Random(seed)
    slots = [(lo, lo + 8) for lo in range(0, 64, 8)]

    def span():
        if rng.random() < 0.6:  # a slot again: the tracker's most frequent case
            return slots[rng.randrange(len(slots))]
        lo = rng.randrange(0, 70)
        return lo, lo + rng.randrange(0, 20)

    ops = []
    for _ in range(300):
        reads = tuple((rng.choice("ab"), *span()) for _ in range(rng.randrange(0, 3)))
        writes = tuple((rng.choice("ab"), *span()) for _ in range(rng.randrange(0, 2)))
        ops.append((reads, writes))
    tracker = Tracker()
    made = [SimpleNamespace(reads=r, writes=w, unit="u") for r, w in ops]
    for op in made:
        tracker.add(op)
    assert [op.deps for op in made] == reference(ops)


def test_a_write_into_the_read_only_constants_is_refused():
    tracker = Tracker(readonly=("dram", 100))
    tracker.add(SimpleNamespace(reads=(("dram", 120, 130),), writes=(), unit="dma0"))
    with pytest.raises(CompilerError, match="read-only region"):
        tracker.add(SimpleNamespace(reads=(), writes=(("dram", 90, 101),), unit="dma1"))
