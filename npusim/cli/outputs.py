"""`--save RUN.json` and `--csv DIR` of `npusim run` (and `--csv` of `npusim sim`): the run kept
for `npusim report` and its tables as CSV."""

from __future__ import annotations

from npusim.cli.errors import UsageError
from npusim.cli.options import check_writable


def add_output_arguments(p, save: bool = True) -> None:
    if save:
        p.add_argument("--save", metavar="RUN.json",
                       help="write the whole result (what --json prints, the target, the "
                            "per-layer and per-unit tables, provenance) for `npusim report`; "
                            "with --trace the trace goes beside it as RUN.trace.parquet")
    p.add_argument("--csv", metavar="DIR",
                   help="write the layer, unit and trace tables as DIR/layers.csv, units.csv, "
                        "trace.csv")


def check_outputs(args) -> None:
    """Refuse an unwritable --save file or --csv folder before any work is done."""
    check_writable(getattr(args, "save", None))
    if args.csv:
        from pathlib import Path
        d = Path(args.csv)
        if d.exists() and not d.is_dir():
            raise UsageError(f"--csv {args.csv}: it is a file; give a folder")


def keep_trace(args) -> bool:
    """Whether the run keeps its trace: for --trace, and for --csv's trace.csv."""
    return bool(args.trace or args.csv)


def save_outputs(result, args) -> None:
    """Write --save (flow.save_run) and --csv (the run's tables); a one-line error if it
    cannot be written."""
    from npusim import flow
    from npusim.report import run_tables, write_csv
    where = None
    try:
        if getattr(args, "save", None):
            where = args.save
            flow.save_run(result, args.save, trace=bool(args.trace),
                          command=getattr(args, "command_line", None))
        if args.csv:
            where = args.csv
            write_csv(args.csv, run_tables(result))
    except OSError as e:
        raise UsageError(f"cannot write '{where}': {e.strerror or e}") from None


def save_sim_csv(sim, directory: str | None, artifact=None) -> None:
    """--csv of `npusim sim`: units, trace and (a compiled artifact's program) layers."""
    if not directory:
        return
    from npusim.report import write_csv
    from npusim.report.tables import sim_tables
    try:
        write_csv(directory, sim_tables(sim, artifact))
    except OSError as e:
        raise UsageError(f"cannot write '{directory}': {e.strerror or e}") from None
