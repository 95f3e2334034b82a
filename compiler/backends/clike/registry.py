"""The C-like kernels, registered per lowered layer kind (layer.kind) by the modules that
write them (layers.py for the built-in ones; a new op's kernel file registers itself)."""

from __future__ import annotations

from typing import Callable

from ...errors import CompilerError
from ...ops import import_package

_KERNELS: dict = {}


def register_kernel(kind: str):
    """Decorator: fn(builder, name, layer) -> Kernel or [Kernel] builds the kernels of every
    lowered layer whose kind is `kind` (conv covers every conv lowering, e.g. the NPU's
    swapped-role one: they share geometry and epilogue)."""
    def attach(fn: Callable) -> Callable:
        if kind in _KERNELS and _KERNELS[kind] is not fn:
            raise CompilerError(f"layer kind '{kind}' has two C-like kernels")
        _KERNELS[kind] = fn
        return fn
    return attach


def kernel_for(layer) -> Callable:
    import_package(__package__)
    if layer.kind not in _KERNELS:
        raise CompilerError(f"layer '{layer.name}': no C-like kernel for layer kind "
                            f"'{layer.kind}' ({type(layer).__name__}); known: "
                            f"{', '.join(_KERNELS)}")
    return _KERNELS[layer.kind]
