"""ReportError: a report that cannot be drawn from what it was given."""

from __future__ import annotations

from isa.errors import NpusimError


class ReportError(NpusimError):
    """An input the report cannot use (not a saved run, artifact or study; a figure missing the
    data it draws, such as a trace or two objectives); the message says what to pass instead."""
