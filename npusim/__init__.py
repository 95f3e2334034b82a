"""npusim: the SimPy discrete-event, cycle-level NPU model, its runtime and its CLI."""

__version__ = "0.1.0"
