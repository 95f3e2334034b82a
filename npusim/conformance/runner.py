"""Runs conformance tests against a DUT: signatures (and with timing, per-instruction cycles)
compared with the reference machine's, in parallel worker processes when asked, with the
results as a table, JSON and JUnit XML."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from isa.target import Target
from npusim.conformance import coverage
from npusim.conformance.dut import Dut, DutResult
from npusim.conformance.signature import WordDiff, diff
from npusim.conformance.suite import Entry

# Instructions whose time in their unit includes waiting for others: no fixed cycle rule.
BLOCKING = {"wait", "barrier", "gbarrier"}


@dataclass
class Outcome:
    """One test's verdict: passed, failed (signature or timing), error (the DUT faulted),
    skipped (the DUT cannot run it)."""

    name: str
    status: str
    message: str = ""
    words_differing: int = 0
    words: list[WordDiff] = field(default_factory=list)
    timing: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def instruction(self) -> str | None:
        """The instruction blamed first: the writer of the first differing word, else the
        first instruction whose cycles differ."""
        if self.words:
            return self.words[0].writer
        return self.timing[0].split(":")[0] if self.timing else None

    def to_json(self) -> dict:
        return {"test": self.name, "status": self.status, "message": self.message,
                "instruction": self.instruction, "words_differing": self.words_differing,
                "words": [{"word": w.word, "address": w.address, "expected": f"{w.expected:08x}",
                           "got": None if w.got is None else f"{w.got:08x}", "writer": w.writer,
                           "mnemonic": w.mnemonic} for w in self.words],
                "timing": self.timing}


def check(entry: Entry, result: DutResult, timing: bool) -> Outcome:
    """Compare one DUT result with the reference machine's."""
    test, exp = entry.test, entry.expected
    if result.error:
        return Outcome(test.name, "error", result.error, wall_s=result.wall_s)
    n, words = diff(exp.signature, result.signature, test.sig_addr, exp.writers,
                    exp.instructions)
    slow = timing_diffs(entry, result) if timing else []
    if not n and not slow:
        return Outcome(test.name, "passed", wall_s=result.wall_s)
    parts = []
    if n:
        parts.append(f"{n} signature word(s) differ; first: {words[0].text()}")
    if slow:
        parts.append(f"{len(slow)} instruction(s) off their cycle rule; first: {slow[0]}")
    return Outcome(test.name, "failed", "; ".join(parts), n, words, slow, result.wall_s)


def timing_diffs(entry: Entry, result: DutResult) -> list[str]:
    """Each instruction whose cycles in its unit (end - start) differ from its spec rule.

    Waits and barriers are left out (their time includes the wait), and a DMA transfer that
    overlaps another DMA transfer (the shared DRAM port contends) too."""
    if not result.trace:
        return ["the DUT reported no per-instruction trace; timing conformance needs one"]
    exp = entry.expected
    dma = [(c, s, e) for c, u, i, s, e in result.trace if u.startswith("dma")]
    seen, out = set(), []
    for core, unit, index, start, end in sorted(result.trace, key=lambda r: (r[3], r[0], r[2])):
        key = (core, index)
        seen.add(key)
        if key not in exp.cycles:
            out.append(f"[core{core} #{index}] on {unit}: not an instruction the program runs")
            continue
        instr = exp.instructions[core << 16 | index][2]
        if instr.mnemonic in BLOCKING:
            continue
        if unit.startswith("dma") and sum(s < end and start < e for _, s, e in dma) > 1:
            continue
        want, got = exp.cycles[key], end - start
        if got != want:
            rule = instr.spec.timing
            out.append(f"[core{core} #{index}] {instr.mnemonic} on {unit}: {got} cycles "
                       f"({start}..{end}), the spec's rule '{rule}' gives {want}")
    missing = [k for k in exp.cycles if k not in seen]
    for core, index in missing[:3]:
        instr = exp.instructions[core << 16 | index][2]
        out.append(f"[core{core} #{index}] {instr.mnemonic}: not in the DUT's trace")
    return out


def _run_chunk(dut: Dut, tests) -> list[DutResult]:
    return dut.run_many(tests)


def run(entries: list[Entry], dut: Dut, target: str, jobs: int = 1, timing: bool = False,
        progress=None) -> "Run":
    """Build the DUT for `target`, run every entry it does not skip (in `jobs` worker
    processes), and check each result."""
    wall = time.perf_counter()
    dut.build(target)
    outcomes: dict[str, Outcome] = {}
    todo = []
    for e in entries:
        why = dut.skip(e.test)
        if why:
            outcomes[e.name] = Outcome(e.name, "skipped", why)
        else:
            todo.append(e)
    results: list[DutResult] = []
    if jobs > 1 and len(todo) > 1 and not getattr(dut, "batch", False):
        chunks = [todo[i::jobs] for i in range(jobs)]
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            parts = list(pool.map(_run_chunk, [dut] * jobs, [[e.test for e in c] for c in chunks]))
        by_name = {}
        for chunk, part in zip(chunks, parts):
            by_name.update({e.name: r for e, r in zip(chunk, part)})
        results = [by_name[e.name] for e in todo]
    else:
        results = dut.run_many([e.test for e in todo])
    for e, r in zip(todo, results):
        outcomes[e.name] = check(e, r, timing)
        if progress:
            progress(outcomes[e.name])
    ordered = [outcomes[e.name] for e in entries]
    hit = set().union(*(e.expected.hits for e in todo)) if todo else set()
    cov = coverage.report(hit, Target.create(target))
    return Run(dut.name, target, ordered, cov, time.perf_counter() - wall, timing)


@dataclass
class Run:
    dut: str
    target: str
    outcomes: list[Outcome]
    coverage: coverage.Report
    wall_s: float
    timing: bool = False

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("failed", "error")]

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_json(self) -> dict:
        return {"dut": self.dut, "target": self.target, "timing": self.timing,
                "tests": len(self.outcomes), "passed": self.count("passed"),
                "failed": len(self.failures), "errors": self.count("error"),
                "skipped": self.count("skipped"), "coverage": self.coverage.fraction,
                "coverage_detail": self.coverage.to_json(), "wall_s": self.wall_s,
                "failures": [o.to_json() for o in self.failures]}

    def table(self, verbose: bool = False) -> str:
        """Per group (the name before '/'): passed, failed, skipped; then each failure."""
        groups: dict = {}
        for o in self.outcomes:
            g = groups.setdefault(o.name.split("/")[0], {"passed": 0, "failed": 0, "error": 0,
                                                         "skipped": 0})
            g[o.status] += 1
        width = max([len(k) for k in groups] + [5])
        lines = [f"{'group':<{width}}  passed  failed  skipped"]
        for name, g in groups.items():
            lines.append(f"{name:<{width}}  {g['passed']:>6}  {g['failed'] + g['error']:>6}  "
                         f"{g['skipped']:>7}")
        lines.append(f"{'total':<{width}}  {self.count('passed'):>6}  {len(self.failures):>6}  "
                     f"{self.count('skipped'):>7}")
        for o in self.failures:
            lines.append("")
            lines.append(f"FAIL {o.name}: {o.status}")
            if o.status == "error":
                lines.append(f"  {o.message}")
            for w in o.words:
                lines.append(f"  {w.text()}")
            if o.words_differing > len(o.words):
                lines.append(f"  ... {o.words_differing - len(o.words)} more word(s)")
            for t in o.timing[:4]:
                lines.append(f"  timing: {t}")
        if verbose:
            lines += ["", *[f"{o.status:>7}  {o.name}  {o.message}" for o in self.outcomes]]
        cov = self.coverage
        lines.append("")
        lines.append(f"{self.dut} on {self.target}: {self.count('passed')} passed, "
                     f"{len(self.failures)} failed, {self.count('skipped')} skipped in "
                     f"{self.wall_s:.1f} s; coverage {100 * cov.fraction:.1f}% of "
                     f"{len(cov.counted)} bins (instructions {100 * cov.of('op'):.0f}%, enum "
                     f"values {100 * cov.of('enum'):.0f}%)")
        return "\n".join(lines)
