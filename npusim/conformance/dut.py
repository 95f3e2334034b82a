"""The DUT plugin interface: what an implementation under test provides to the conformance runner,
and how `--dut NAME|PATH|MODULE` finds one.

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

import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

from isa.errors import NpusimError

BUILTIN = {"model": "npusim.conformance.plugins.model:ModelDut",
           "timing": "npusim.conformance.plugins.model:TimingDut",
           "rtl": "npusim.conformance.plugins.rtl:RtlDut"}


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


def load_dut(spec: str, **options) -> Dut:
    """A DUT from a built-in name (model, timing, rtl), a Python file path ("my_dut.py" or
    "my_dut.py:MyDut") or a module ("pkg.mod" or "pkg.mod:MyDut"); without a class name the
    module's one Dut subclass (or its `DUT` attribute) is used."""
    spec = BUILTIN.get(spec, spec)
    where, _, cls_name = spec.partition(":")
    if where.endswith(".py") or Path(where).is_file():
        path = Path(where)
        if not path.is_file():
            raise DutError(f"DUT plugin file {where} does not exist; built-in DUTs: "
                           f"{', '.join(BUILTIN)}")
        mod_name = f"npusim_dut_{path.stem}"
        mod_spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[mod_name] = module  # so --jobs workers can unpickle its classes
        mod_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as e:
            raise DutError(f"no DUT '{spec}': not a built-in ({', '.join(BUILTIN)}), a .py file "
                           f"or an importable module ({e})") from None
    if cls_name:
        cls = getattr(module, cls_name, None)
        if cls is None:
            raise DutError(f"DUT plugin {where} has no class {cls_name}")
    elif hasattr(module, "DUT"):
        cls = module.DUT
    else:
        found = [c for _, c in inspect.getmembers(module, inspect.isclass)
                 if issubclass(c, Dut) and c is not Dut and c.__module__ == module.__name__]
        if len(found) != 1:
            raise DutError(f"DUT plugin {where} defines {len(found)} Dut subclasses "
                           f"({', '.join(c.__name__ for c in found) or 'none'}); name one as "
                           f"{where}:ClassName or set DUT = ClassName")
        cls = found[0]
    dut = cls(**options) if options else cls()
    if not isinstance(dut, Dut):
        raise DutError(f"{spec} is not a npusim.conformance.Dut subclass")
    return dut
