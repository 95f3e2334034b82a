"""How the CLI reports the errors of the root (isa.errors.NpusimError): one `npusim: error:`
line, exit 2; a simulation fault its own lines, exit 1. Anything else is a bug: its traceback."""

from __future__ import annotations

import sys

from isa.errors import NpusimError


class UsageError(NpusimError):
    """A command-line mistake found after parsing (a bad -t, an unreadable file, flags that
    contradict each other): one `npusim: error:` line, exit 2."""


def fail(message: str) -> int:
    """A mistake the user made: one `npusim: error:` line on stderr; -> exit status 2."""
    print(f"npusim: error: {message}", file=sys.stderr)
    return 2


def report(error: NpusimError) -> int:
    """Exactly the errors of isa, compiler and npusim become short reports (anything else is
    a bug and keeps its traceback): a simulation fault its own lines, exit 1; assembly errors
    their `file:line:col: error:` lines, exit 2; everything else one `npusim: error:` line (the
    first of its message), exit 2."""
    from isa.asm import AsmError
    from npusim.faults import SimulationFault
    from npusim.runtime.errors import DeviceError, RunFault
    if isinstance(error, SimulationFault):
        print(f"npusim: simulation fault: {error}", file=sys.stderr)
        return 1
    if isinstance(error, RunFault):  # the Device API's wrapper of a fault: its own few lines
        print(f"npusim: {error}", file=sys.stderr)
        return 1
    cause = error.__cause__ if isinstance(error, DeviceError) else error
    if isinstance(cause, AsmError):
        print(str(cause), file=sys.stderr)  # `file:line:col: error: ...`, one per error
        return 2
    text = str(error)
    return fail(text.splitlines()[0] if text else type(error).__name__)
