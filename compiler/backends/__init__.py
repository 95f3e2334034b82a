"""Backends, found by Target kind in a registry (never by comparing targets): each turns a model
into an artifact for its kind. `build(model, target)` is the one entry point."""

from __future__ import annotations

from .registry import Backend, BackendRegistry

# the process-wide registry; the built-in kinds are imported on first use
REGISTRY = BackendRegistry({"npu": "compiler.backends.npu:NpuBackend",
                            "cpu": "compiler.backends.cpu:CpuBackend",
                            "gpu": "compiler.backends.gpu:GpuBackend"})

__all__ = ["Backend", "BackendRegistry", "REGISTRY", "register_backend", "list_backends",
           "get_backend", "build"]


def register_backend(kind: str):
    """Class decorator: `@register_backend("cpu") class CpuBackend(Backend): ...` (idempotent
    for the same class; another class for a registered kind is refused)."""
    return REGISTRY.register(kind)


def list_backends() -> list:
    return REGISTRY.kinds()


def get_backend(target) -> Backend:
    """The backend of `target`'s kind (a Target, target string or dict)."""
    return REGISTRY.get(target)


def build(model, target="npu-edge", **options):
    """Compile `model` (zoo name, .onnx path, Graph, or QuantizedModule) for `target`."""
    return REGISTRY.build(model, target, **options)


# the cpu and gpu backends bring their Target kinds: registered with the backends, so a process
# that builds through this package has them even where the npusim.target_kinds entry points
# (pyproject.toml) are not installed; last, for the backends import register_backend
from .cpu import target as _cpu_target  # noqa: E402,F401
from .gpu import target as _gpu_target  # noqa: E402,F401
