"""The errors of `npusim scalesim`: a SCALE-Sim config or topology it cannot run."""

from __future__ import annotations

from isa.errors import NpusimError


class ScaleSimError(NpusimError, ValueError):
    """A SCALE-Sim config or topology file cannot be run as written: the message names the
    file, the key or line, the value and what is allowed, on one line."""
