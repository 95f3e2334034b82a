"""npusim: the SimPy cycle-level NPU model, its runtime, the flow API (npusim.flow) and the CLI."""

from isa.errors import NpusimError

__version__ = "0.1.0"

__all__ = ["NpusimError", "__version__"]
