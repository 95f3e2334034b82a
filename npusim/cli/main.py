"""Entry point of the `npusim` console script: builds the argparse tree from subcommand modules."""

from __future__ import annotations

import argparse
import importlib
import sys

from isa.errors import NpusimError

# Each module defines `register(subparsers)` that adds its parser with `func=run(args) -> int`.
# Imported lazily so `npusim isa` does not pay for the compiler or pandas.
SUBCOMMANDS = {
    "isa": "npusim.cli.isa_cmd",
    "targets": "npusim.cli.targets_cmd",
    "asm": "npusim.cli.asm_cmd",
    "disasm": "npusim.cli.asm_cmd",
    "sim": "npusim.cli.sim_cmd",
    "run": "npusim.cli.run_cmd",
    "compile": "npusim.cli.compile_cmd",
}


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


class _Parser(argparse.ArgumentParser):
    """argparse with command-line mistakes reported as one `npusim: error:` line, exit 2."""

    def error(self, message: str):
        command = self.prog.removeprefix("npusim").strip()
        where = f"{command}: " if command else ""
        self.exit(2, f"npusim: error: {where}{message}; see '{self.prog} --help'\n")


def build_parser() -> argparse.ArgumentParser:
    # Subparsers are built with the parent's class, so every subcommand reports alike.
    parser = _Parser(prog="npusim", description="NPU hardware/software co-design simulator.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    registered = set()
    for module_name in dict.fromkeys(SUBCOMMANDS.values()):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name == module_name:  # subcommand not built yet
                continue
            raise
        if module_name not in registered:
            module.register(sub)
            registered.add(module_name)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except NpusimError as e:
        return report(e)
    except BrokenPipeError:  # `npusim isa | head`
        return 0
    except KeyboardInterrupt:
        print("npusim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
