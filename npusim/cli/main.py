"""Entry point of the `npusim` console script: builds the argparse tree from subcommand modules."""

from __future__ import annotations

import argparse
import importlib
import sys

from isa.errors import NpusimError
from npusim.cli.errors import report

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
    "conformance": "npusim.cli.conformance_cmd",
    "report": "npusim.cli.report_cmd",
    "dse": "npusim.cli.dse_cmd",
    "scalesim": "npusim.cli.scalesim_cmd",
}


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
    # what saved runs and reports record as their provenance's command
    args.command_line = ["npusim", *(sys.argv[1:] if argv is None else argv)]
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
