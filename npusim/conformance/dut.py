"""The DUT plugin interface: what an implementation under test provides to the conformance runner,
and how `--dut NAME|PATH|MODULE` finds one (npusim.conformance.registry).

A plugin is a class (subclass Dut) with:

- `name`: shown in reports; `reports_cycles`: True if `run` fills `DutResult.trace`;
- `build(target)`: prepare for a Target (compile RTL, start a simulator...), once per run;
- `skip(test)`: None, or why this DUT cannot run the test (too many cores, DRAM too small);
- `run(test)`: run one TestCase and return a DutResult: the bytes of its signature region
  (`test.sig_addr`, `test.sig_bytes`), and optionally the total cycles and a per-instruction
  trace of (core, unit, index, start, end) for timing conformance;
- `run_many(tests)`: optional; the default calls `run` per test, a simulator that is slow to
  start overrides it to run a batch in one process.

A DUT that faults on a test returns DutResult(error="...") rather than raising."""

from __future__ import annotations

from dataclasses import dataclass, field

from isa.errors import NpusimError


class DutError(NpusimError):
    """A DUT plugin that cannot be found, loaded or built."""


@dataclass
class DutResult:
    """What a DUT reports for one test."""

    signature: bytes = b""
    cycles: int | None = None
    trace: list[tuple[int, str, int, int, int]] = field(default_factory=list)
    error: str | None = None
    wall_s: float = 0.0


class Dut:
    """Base class of DUT plugins (see the module docstring)."""

    name = "dut"
    reports_cycles = False
    default_target = "npu-edge"

    def build(self, target: str) -> None:
        """Prepare for `target` (default: nothing to build)."""

    def skip(self, test) -> str | None:
        return None

    def run(self, test) -> DutResult:
        raise NotImplementedError(f"{type(self).__name__}.run")

    def run_many(self, tests) -> list[DutResult]:
        return [self.run(t) for t in tests]
