"""`npusim report INPUT -o DIR`: the HTML (or Markdown) report of a saved run, an artifact
(simulated on the fly) or a DSE study, with its figures as SVG + PNG and its tables as CSV."""

from __future__ import annotations

import json
from pathlib import Path

from npusim.cli.errors import UsageError
from npusim.cli.options import add_races_argument, non_negative


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report", help="write the HTML/Markdown report of a run, an artifact or a DSE study",
        description="Write DIR/index.html (one self-contained file: provenance, summary, "
                    "sortable tables, the figures inline), every figure as SVG and PNG and "
                    "the tables as CSV, for INPUT: a run saved by `npusim run --save RUN.json` "
                    "(with --compare data: the NPU vs CPU vs GPU figure), an artifact directory "
                    "written by `npusim compile` (simulated here, timing only, with a trace), "
                    "or a DSE study (its space file, or --storage URL --study NAME).",
        epilog="examples: npusim run resnet18 --trace t.json --save run.json && npusim report "
               "run.json -o report; npusim report run.json --baseline other.json -o delta")
    p.add_argument("input", nargs="?", metavar="INPUT",
                   help="saved run (.json), artifact directory, or DSE space file")
    p.add_argument("-o", "--out", required=True, metavar="DIR",
                   help="folder to write index.html (or index.md), figures and CSVs into")
    p.add_argument("--baseline", metavar="OTHER",
                   help="a second run (saved run or artifact directory): adds the per-layer "
                        "cycle deltas of INPUT against it")
    p.add_argument("--format", choices=("html", "md"), default="html",
                   help="index.html (default) or index.md")
    p.add_argument("--open", action="store_true", help="open the report in a web browser")
    p.add_argument("-t", "--target", metavar="TARGET",
                   help="for an artifact INPUT: simulate on this target (timing attributes "
                        "may differ from the artifact's)")
    p.add_argument("--seed", type=non_negative, default=0,
                   help="for an artifact INPUT: seed of its random inputs")
    p.add_argument("--storage", metavar="URL",
                   help="DSE study storage (e.g. sqlite:///dse.db), with --study")
    p.add_argument("--study", metavar="NAME", help="DSE study name in --storage")
    add_races_argument(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from npusim import report
    if bool(args.storage) != bool(args.study):
        raise UsageError("--storage and --study go together: --storage sqlite:///dse.db "
                         "--study NAME")
    if args.input is None and not (args.storage and args.study):
        raise UsageError("give INPUT (a saved run, an artifact directory or a DSE space file) "
                         "or --storage URL --study NAME")
    if args.storage or _is_space_file(args.input):
        if args.baseline:
            raise UsageError("--baseline compares two runs; a DSE study is not a run")
        rep = _study(args)
    else:
        result, prov = _run_input(args.input, args)
        baseline = _run_input(args.baseline, args)[0] if args.baseline else None
        rep = report.run_report(result, baseline=baseline, provenance=prov)
    index = report.write(rep, args.out, args.format)
    print(index)
    if args.open:
        import webbrowser
        webbrowser.open(index.resolve().as_uri())
    return 0


def _run_input(path: str, args):
    """(flow Result, provenance) of a saved run or an artifact directory."""
    from npusim import flow
    from npusim.flow import saved
    p = Path(path)
    if p.is_dir():
        if not (p / "manifest.json").is_file():
            raise UsageError(f"'{path}' is a folder but not an artifact (no manifest.json); "
                             "write one with `npusim compile MODEL -o DIR`")
        from npusim.cli.options import npu_target_arg, race_warnings
        compiled = flow.compile(str(p))
        target = npu_target_arg(args.target) if args.target else None
        with race_warnings([]) as sims:
            result = flow.simulate(compiled, target=target, timing_only=True, trace=True,
                                   seed=args.seed, races=args.races)
            sims.append(result.sim)
        prov = {**saved.provenance(getattr(args, "command_line", None)),
                "input": f"artifact {path} (simulated, timing only)"}
        return result, prov
    if not p.exists():
        raise UsageError(f"report input '{path}' does not exist; give a run saved with "
                         "`npusim run ... --save RUN.json`, an artifact directory or a DSE "
                         "space file")
    result = flow.load_run(p)  # a file that is not a saved run is refused in one line
    return result, {**saved.saved_provenance(p), "input": f"saved run {path}"}


SPACE_SUFFIXES = (".toml", ".yaml", ".yml")


def _is_space_file(path: str | None) -> bool:
    """A DSE space file: TOML/YAML, or JSON that is not a saved run."""
    if path is None or Path(path).is_dir():
        return False
    if path.endswith(SPACE_SUFFIXES):
        return True
    if path.endswith(".json") and Path(path).is_file():
        from npusim.flow.saved import is_saved_run
        return not is_saved_run(path) and _looks_like_space(path)
    return False


def _looks_like_space(path: str) -> bool:
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and ("space" in doc or "attributes" in doc)


def _study(args):
    """The Report of a DSE study, through npusim.dse."""
    try:
        from npusim import dse
    except ImportError:
        raise UsageError("a DSE study report needs npusim.dse, which this checkout does not "
                         "have yet; report a saved run or an artifact instead") from None
    from npusim import report
    study = dse_study(dse, args)
    from npusim.flow.saved import provenance
    prov = {**provenance(getattr(args, "command_line", None)), "input": study["input"]}
    rep = report.study_report(study["frame"], attributes=study["attributes"],
                              objectives=study["objectives"], directions=study["directions"],
                              name=study["name"], front_of=study["front_of"], provenance=prov)
    return rep


def dse_study(dse, args) -> dict:
    """The trial table and its columns' roles, from npusim.dse (a space file: its own storage
    and study; or --storage URL --study NAME): {frame, attributes, objectives, directions,
    name, input, front_of}."""
    if args.storage:
        df = dse.load(args.storage, args.study)
        where = f"DSE study {args.study} in {args.storage}"
    else:
        df = dse.load(args.input)
        where = f"DSE study of {args.input}"
    meta = df.attrs
    objectives = [o for o in meta.get("objectives", []) if o in df.columns]
    attributes = [_column(df, p) for p in meta.get("params", []) if _column(df, p)]
    if df.empty or not objectives:
        raise UsageError(f"{where}: no finished trials to report yet ({len(df)} rows, "
                         f"objectives {objectives or 'none'}); run it with `npusim dse run`")
    directions = dict(meta.get("directions", {}))

    def front_of(frame, objs):  # the study's own Pareto rule, as a mask over `frame`
        return frame.index.isin(dse.pareto_front(frame, objs, directions).index)
    return {"frame": df, "attributes": attributes, "objectives": objectives,
            "directions": directions, "name": meta.get("study", args.study or args.input),
            "input": where, "front_of": front_of}


def _column(df, param: str) -> str | None:
    """The table's column of a space attribute: its dashed name, or its Python name."""
    return next((c for c in (param, param.replace("-", "_")) if c in df.columns), None)
