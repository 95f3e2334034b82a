"""`npusim dse run SPACE.toml ...` and `npusim dse show ...`: a thin layer over npusim.dse."""

from __future__ import annotations

import json
import math
import sys

from npusim.cli.errors import UsageError
from npusim.cli.options import check_writable, int_at_least

SHOW_COLUMNS = 8  # objectives shown in the terminal table (the files have every column)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "dse", help="design-space exploration: sweep or search Targets x workloads",
        description="Evaluate the points of a space file (TOML: docs/dse.md) and store each as "
                    "it finishes; show the stored table or its Pareto front.")
    sub = p.add_subparsers(dest="dse_command", metavar="ACTION")
    sub.required = True
    r = sub.add_parser("run", help="evaluate the points not yet stored (resumes a killed run)",
                       epilog="example: npusim dse run experiments/dse/edge_sweep.toml --jobs 2")
    r.add_argument("space", metavar="SPACE.toml", help="the space file")
    r.add_argument("--storage", metavar="URL",
                   help="an SQLAlchemy URL Optuna accepts, or a .db file (default: SQLite "
                        "beside the space file)")
    r.add_argument("--trials", type=int_at_least(1), metavar="N",
                   help="points to evaluate with random/tpe/nsga2 (grid runs the whole grid)")
    r.add_argument("--jobs", type=int_at_least(1), default=1, metavar="J",
                   help="local worker processes (default 1; results are the same for any J)")
    r.add_argument("--dask", metavar="ADDRESS",
                   help="evaluate on a Dask distributed cluster (scheduler address, e.g. "
                        "tcp://10.0.0.5:8786)")
    r.add_argument("--json", action="store_true", help="print a summary object at the end")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.set_defaults(func=run)
    s = sub.add_parser("show", help="print the stored table, or its Pareto front",
                       epilog="examples: npusim dse show space.toml --pareto; npusim dse show "
                              "--storage sqlite:///x.db --study edge-sweep --csv x.csv")
    s.add_argument("space", nargs="?", metavar="SPACE.toml",
                   help="the space file (its default storage and study)")
    s.add_argument("--storage", metavar="URL", help="storage URL or .db file")
    s.add_argument("--study", metavar="NAME", help="study name (default: the space's)")
    s.add_argument("--pareto", action="store_true", help="only the non-dominated ok points")
    s.add_argument("--csv", metavar="FILE", help="write the table as CSV")
    s.add_argument("--parquet", metavar="FILE", help="write the table as Parquet")
    s.add_argument("--json", action="store_true", help="print the rows as JSON")
    s.set_defaults(func=show)


def run(args) -> int:
    from npusim import dse
    if args.dask and args.jobs != 1:
        raise UsageError("--jobs and --dask exclude each other: a Dask cluster has its own "
                         "workers (dask worker --nworkers N)")
    space = dse.load_space(args.space)
    try:
        summary = dse.run_study(space, storage=args.storage, trials=args.trials, jobs=args.jobs,
                                dask=args.dask, progress=not args.no_progress)
    except dse.Interrupted as e:
        s = e.summary
        print(f"npusim: interrupted: {s['finished']} of {s['points']} points saved in "
              f"{s['storage']}; run the same command again to resume", file=sys.stderr)
        if args.json:
            print(json.dumps(s, indent=2))
        return 130
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        best = ", ".join(f"{k}={v:.6g}" for k, v in summary["best"].items() if v is not None)
        print(f"{summary['study']}: {summary['finished']}/{summary['points']} points "
              f"({summary['ok']} ok, {summary['infeasible']} infeasible, {summary['failed']} "
              f"failed; {summary['evaluated']} evaluated now, {summary['resumed']} resumed) "
              f"in {summary['wall_s']:.1f} s; best {best or '-'}; stored in {summary['storage']}")
    return 0


def _frame(args):
    from npusim import dse
    if args.space:
        space = dse.load_space(args.space)
        return dse.load(args.storage or space.default_storage(), args.study or space.name)
    if not args.storage:
        raise UsageError("name a space file, or --storage URL (and --study NAME)")
    return dse.load(args.storage, args.study)


def show(args) -> int:
    from isa.files import write_atomic
    from npusim import dse
    for path in (args.csv, args.parquet):
        check_writable(path)
    df = _frame(args)
    if args.pareto:
        df = dse.pareto_front(df)
    if args.csv:
        write_atomic(args.csv, df.to_csv(index=False))
    if args.parquet:
        import io
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        write_atomic(args.parquet, buf.getvalue())
    if args.json:
        rows = json.loads(df.to_json(orient="records"))
        print(json.dumps({"study": df.attrs.get("study"), "objectives": df.attrs.get("objectives"),
                          "rows": rows}, indent=2))
        return 0
    if df.empty:
        print(f"{df.attrs.get('study')}: no {'ok ' if args.pareto else ''}points stored yet")
        return 0
    shown = df.attrs["objectives"] + [o for o in ("cycles", "energy_uj", "area_mm2")
                                      if o not in df.attrs["objectives"]]
    cols = ["trial", "status"] + df.attrs["params"] + shown[:SHOW_COLUMNS] + ["reason"]
    table = df[cols].copy()
    table["reason"] = table["reason"].str.slice(0, 60)
    print(table.to_string(index=False, float_format=_fmt))
    what = "Pareto-optimal points" if args.pareto else "points"
    print(f"{len(df)} {what} of study {df.attrs.get('study')}"
          + ("" if args.pareto else
             f" ({(df['status'] == 'ok').sum()} ok)") + "; full Target strings: --csv/--json")
    return 0


def _fmt(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.5g}"
