"""npusim: the SimPy discrete-event, cycle-level NPU model, its runtime, the flow API and the CLI."""

from isa.errors import NpusimError

__version__ = "0.1.0"

__all__ = ["NpusimError", "__version__"]
