"""The shared C-like emitter (tinygrad-style): lowered layers become kernels once (layers.py),
and a Renderer subclass per language turns them into source from data and a few hooks."""

from .kernel import Arg, GemmKernel, Kernel, MapKernel, SpaceKernel, Tile
from .prepare import FLOAT_TOLERANCE, Prepared, prepare
from .program import Program, emit
from .renderer import Renderer

__all__ = ["Arg", "Kernel", "MapKernel", "SpaceKernel", "GemmKernel", "Tile", "Prepared",
           "prepare", "FLOAT_TOLERANCE", "Program", "emit", "Renderer"]
