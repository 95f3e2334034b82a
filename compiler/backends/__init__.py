"""Backends, found by Target kind in a registry (never by comparing targets): each turns a model
into an artifact for its kind. `build(model, target)` is the one entry point."""

from __future__ import annotations

from ..errors import CompilerError, did_you_mean

_BACKENDS: dict = {}
_BUILTIN = {"npu": "compiler.backends.npu"}  # imported on first use


class Backend:
    """A code generator for one Target kind; subclasses implement `build`."""

    kind = ""

    def build(self, model, target, **options):
        raise NotImplementedError


def register_backend(kind: str):
    """Class decorator: `@register_backend("cpu") class CpuBackend(Backend): ...`."""
    def deco(cls):
        if kind in _BACKENDS and _BACKENDS[kind] is not cls:
            raise CompilerError(f"a backend for target kind '{kind}' is already registered "
                                f"({_BACKENDS[kind].__name__})")
        cls.kind = kind
        _BACKENDS[kind] = cls
        return cls
    return deco


def _load_builtin() -> None:
    import importlib
    for module in _BUILTIN.values():
        importlib.import_module(module)


def list_backends() -> list:
    _load_builtin()
    return sorted(_BACKENDS)


def get_backend(target) -> Backend:
    """The backend of `target`'s kind (a Target, target string or dict)."""
    from isa.target import Target
    kind = Target.create(target).kind
    _load_builtin()
    if kind not in _BACKENDS:
        raise CompilerError(f"no backend for target kind '{kind}' is enabled; "
                            f"{did_you_mean(kind, _BACKENDS)}")
    return _BACKENDS[kind]()


def build(model, target="npu-edge", **options):
    """Compile `model` (zoo name, .onnx path, Graph, or QuantizedModule) for `target`."""
    return get_backend(target).build(model, target, **options)
