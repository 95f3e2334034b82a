"""SimPy processes of one core's hardware units: dispatcher, matrix, vector, DMA channels."""

from npusim.units.base import COUNTERS, Unit
from npusim.units.dispatch import Dispatcher
from npusim.units.dma import DmaUnit

__all__ = ["COUNTERS", "Unit", "DmaUnit", "Dispatcher"]
