"""The errors of design-space exploration: a bad space file, a study that does not match it."""

from __future__ import annotations

from isa.errors import NpusimError


class DseError(NpusimError):
    """A design-space exploration cannot be done as asked."""


class SpaceError(DseError, ValueError):
    """A space file (or dict) is invalid: the message names the key, the value and what is
    allowed, on one line."""


class StudyError(DseError):
    """A study in storage does not exist, or was made from another space."""
