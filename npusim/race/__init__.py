"""Dynamic data-race detection for the SimPy model: a happens-before check of every access."""

from npusim.race.detector import MODES, RaceDetector

__all__ = ["MODES", "RaceDetector"]
