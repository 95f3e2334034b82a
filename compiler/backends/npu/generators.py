"""The NPU code generators, registered per lowered layer class by the *_gen.py modules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...errors import CompilerError
from ...ops import import_package


@dataclass(frozen=True)
class Generator:
    """gen(em, layer, items, dram, lowered, key) emits the code of `items`, the share of the
    layer's tiles (or chunks) that work(layer, hw, core, cores) gives one core."""

    gen: Callable
    work: Callable


_GENERATORS: dict = {}


def split(items: list, parts: int, core: int) -> list:
    """The `core`-th of `parts` contiguous, balanced slices."""
    n = len(items)
    return items[core * n // parts:(core + 1) * n // parts]


def register_generator(layer_cls, items: Callable | None = None, work: Callable | None = None):
    """Decorator: the generator of `layer_cls`. items(layer, hw) lists its tiles, split into
    contiguous balanced slices over the cores; or work(layer, hw, core, cores) picks them."""
    if (items is None) == (work is None):
        raise CompilerError(f"register_generator({layer_cls.__name__}): give items or work")
    if work is None:
        work = lambda layer, hw, core, cores: split(items(layer, hw), cores, core)  # noqa: E731

    def attach(gen):
        if layer_cls in _GENERATORS:
            raise CompilerError(f"{layer_cls.__name__} has two NPU code generators")
        _GENERATORS[layer_cls] = Generator(gen, work)
        return gen
    return attach


def generator_for(layer) -> Generator:
    import_package(__package__)  # each *_gen.py registers itself by being there
    try:
        return _GENERATORS[type(layer)]
    except KeyError:
        known = ", ".join(sorted(c.__name__ for c in _GENERATORS))
        raise CompilerError(f"layer '{layer.name}': no NPU code generator for "
                            f"{type(layer).__name__}; known: {known}") from None
