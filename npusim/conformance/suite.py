"""The conformance suite of a Target: every generator's tests, built and named, with their
expected results from the reference machine (computed once per test, on demand)."""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass

import numpy as np

from isa.target import Target
from npusim.conformance import gen_dma, gen_limits, gen_matrix, gen_sync, gen_vector
from npusim.conformance.case import Dropped, GeneratorError, TestCase
from npusim.conformance.reference import Expected, expected

GENERATORS = {"dma": gen_dma.generate, "matrix": gen_matrix.generate,
              "vector": gen_vector.generate, "sync": gen_sync.generate,
              "limits": gen_limits.generate}
SEED = 2026


@dataclass
class Entry:
    """A test, its expected result, and the coverage bins it hits (labels)."""

    test: TestCase
    expected: Expected

    @property
    def name(self) -> str:
        return self.test.name

    @property
    def labels(self) -> list[str]:
        return sorted(self.expected.hits | set(self.test.labels))


@functools.lru_cache(maxsize=8)
def _build(target_text: str, seed: int) -> tuple[tuple[Entry, ...], tuple[tuple[str, str], ...]]:
    t = Target.create(target_text)
    entries, dropped = [], []
    for group, gen in GENERATORS.items():
        rng = np.random.default_rng([seed, sum(map(ord, group))])
        it = gen(t, rng)
        while True:
            try:
                builder = next(it)
            except StopIteration:
                break
            except GeneratorError as e:  # a generator that cannot go on on this Target
                dropped.append((group, str(e)))
                break
            if isinstance(builder, Dropped):  # a test whose shape this Target cannot hold
                dropped.append((builder.name, builder.reason))
                continue
            try:
                test = builder.build()
                entries.append(Entry(test, expected(test)))
            except GeneratorError as e:
                dropped.append((builder.name, str(e)))
    names = [e.name for e in entries]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise GeneratorError(f"conformance tests named twice: {', '.join(sorted(dup))}")
    return tuple(entries), tuple(dropped)


def suite(target="npu-edge", seed: int = SEED) -> list[Entry]:
    """Every test of the suite on `target`, in generator order."""
    from isa.checks import target_name
    return list(_build(target_name(Target.create(target)), seed)[0])


def dropped(target="npu-edge", seed: int = SEED) -> list[tuple[str, str]]:
    """(test or group, why) of the tests this Target's sizes cannot hold."""
    from isa.checks import target_name
    return list(_build(target_name(Target.create(target)), seed)[1])


def select(entries: list[Entry], pattern: str | None) -> list[Entry]:
    """Tests whose name matches `pattern`: a glob ("vadd/*", "*tie*") or, failing that, a
    substring or regular expression; comma-separated patterns are or-ed."""
    if not pattern:
        return entries
    pats = [p.strip() for p in pattern.split(",") if p.strip()]

    def hit(name: str) -> bool:
        for p in pats:
            if fnmatch.fnmatchcase(name, p) or p in name:
                return True
            try:
                if re.search(p, name):
                    return True
            except re.error:
                pass
        return False
    return [e for e in entries if hit(e.name)]
