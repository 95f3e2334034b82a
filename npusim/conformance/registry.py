"""Finds the DUT plugin `--dut` names: a built-in (model, timing, rtl), a Python file, or a
module; the plugin interface itself is npusim.conformance.dut."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path

from npusim.conformance.dut import Dut, DutError

BUILTIN = {"model": "npusim.conformance.plugins.model:ModelDut",
           "timing": "npusim.conformance.plugins.model:TimingDut",
           "rtl": "rtl_tests.tb.conformance_dut:RtlDut"}
# rtl_tests/ sits beside rtl/ in a source checkout and is no installed package
CHECKOUT = Path(__file__).resolve().parents[2]


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
        if where.startswith("rtl_tests.") and (CHECKOUT / "rtl_tests").is_dir() \
                and str(CHECKOUT) not in sys.path:
            sys.path.append(str(CHECKOUT))  # the console script does not run from the checkout
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
