"""BackendRegistry: backend classes by Target kind, built-in kinds imported on first use."""

from __future__ import annotations

import importlib
from contextlib import contextmanager

from ..errors import CompilerError, did_you_mean


class Backend:
    """A code generator for one Target kind; subclasses implement `build`."""

    kind = ""

    def build(self, model, target, **options):
        raise NotImplementedError


def _same(a: type, b: type) -> bool:
    # re-importing a backend's module (importlib.reload, a second sys.path entry) makes a new
    # class object of the same name: that is the same backend, not a rival
    return a is b or (a.__module__, a.__qualname__) == (b.__module__, b.__qualname__)


class BackendRegistry:
    """kind -> Backend subclass. `builtin` maps kinds to "module:Class"; the registry imports
    and registers those itself when a kind is first looked up (or challenged), so the result
    never depends on which test or caller imported a backend module first."""

    def __init__(self, builtin: dict | None = None):
        self._builtin = dict(builtin or {})
        self._backends: dict = {}

    def register(self, kind: str):
        """Class decorator: `@registry.register("cpu") class CpuBackend(Backend): ...`.
        Registering the same class again is a no-op; another class for a kind is refused."""
        def deco(cls):
            module = self._builtin.get(kind, "").partition(":")[0]
            if cls.__module__ != module:  # a rival of a built-in not yet imported: load it
                self._load(kind)          # now, so the clash is reported here, every time
            old = self._backends.get(kind)
            if old is not None and not _same(old, cls):
                raise CompilerError(
                    f"a backend for target kind '{kind}' is already registered "
                    f"({old.__module__}.{old.__qualname__}); use a BackendRegistry() of your "
                    "own for another one")
            cls.kind = kind
            self._backends[kind] = cls
            return cls
        return deco

    def _load(self, kind: str) -> None:
        if kind in self._backends or kind not in self._builtin:
            return
        module, _, name = self._builtin[kind].partition(":")
        self._backends[kind] = getattr(importlib.import_module(module), name)
        self._backends[kind].kind = kind

    def kinds(self) -> list:
        for kind in self._builtin:
            self._load(kind)
        return sorted(self._backends)

    def lookup(self, kind: str) -> Backend:
        """A new backend object for `kind` (a kind name)."""
        self._load(kind)
        if kind not in self._backends:
            raise CompilerError(f"no backend for target kind '{kind}' is enabled; "
                                f"{did_you_mean(kind, self.kinds())}")
        return self._backends[kind]()

    def get(self, target) -> Backend:
        """The backend of `target`'s kind (a Target, target string or dict)."""
        from isa.target import Target
        return self.lookup(Target.create(target).kind)

    def build(self, model, target="npu-edge", **options):
        return self.get(target).build(model, target, **options)

    @contextmanager
    def isolated(self):
        """Registrations made inside the block are undone on leaving it (for tests)."""
        self.kinds()  # built-ins first, so they survive the restore
        saved = dict(self._backends)
        try:
            yield self
        finally:
            self._backends.clear()
            self._backends.update(saved)
