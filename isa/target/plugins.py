"""Target kinds other packages declare: the `npusim.target_kinds` entry-point group, loaded once,
the first time a kind or tag lookup misses or a listing is asked for.

isa declares only the npu kind. A package that brings another kind (our cpu and gpu backends,
or a third party's) names a module in its pyproject.toml that registers the kind and its tags
when imported:

    [project.entry-points."npusim.target_kinds"]
    cpu = "compiler.backends.cpu.target"

so `Target.create("gpu-a100")` works in a process that imported only isa, while isa names no
module of any other package. Importing such a module by hand registers its kinds as well."""

from __future__ import annotations

import warnings
from importlib.metadata import entry_points

GROUP = "npusim.target_kinds"
_state = {"loaded": False}


def load_plugins() -> None:
    """Import every module the installed packages list under GROUP (by entry-point name, so
    tags list in the same order everywhere); a no-op after the first call."""
    if _state["loaded"]:
        return
    _state["loaded"] = True  # first: lookups a plugin makes while it imports must not re-enter
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        try:
            ep.load()
        except Exception as e:  # noqa: BLE001 - one broken plugin must not break every Target
            warnings.warn(f"target kind plugin '{ep.name}' ({ep.value}) failed to load: "
                          f"{type(e).__name__}: {e}", RuntimeWarning, stacklevel=2)
