"""`npusim conformance list|run|coverage`: the ISA conformance suite (docs/conformance.md)."""

from __future__ import annotations

import json
import sys

from npusim.cli.options import int_at_least


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "conformance", help="ISA conformance suite: list the tests, run them against a DUT",
        description="Signature tests generated from the ISA spec and its reference semantics; "
                    "run against the model, the RTL core or any DUT plugin.",
        epilog="examples: npusim conformance list --json; npusim conformance run --dut model; "
               "npusim conformance run --dut rtl --only 'vadd/*'; "
               "npusim conformance run --dut examples/conformance_npusim_sim.py --only load/")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    ls = sub.add_parser("list", help="the tests with their coverage labels")
    _common(ls)
    ls.add_argument("--json", action="store_true", help="one JSON object: tests and labels")
    ls.set_defaults(func=run_list)
    cov = sub.add_parser("coverage", help="instruction x field-class x corner coverage")
    _common(cov)
    cov.add_argument("--json", action="store_true", help="the report as one JSON object")
    cov.set_defaults(func=run_coverage)
    r = sub.add_parser("run", help="run the tests against a DUT and print a pass/fail table")
    _common(r)
    r.add_argument("--dut", default="model", metavar="DUT",
                   help="model, timing, rtl, or a plugin: path/to/plugin.py[:Class] or "
                        "package.module[:Class] (default: model)")
    r.add_argument("--jobs", "-j", type=int_at_least(1), default=1, metavar="J",
                   help="worker processes (DUTs that batch, like rtl, ignore it)")
    r.add_argument("--junit", metavar="FILE", help="write JUnit XML for CI systems")
    r.add_argument("--timing", action="store_true",
                   help="also compare each instruction's cycles with its spec cycle rule "
                        "(the DUT must report a trace: timing, rtl)")
    r.add_argument("--json", action="store_true",
                   help="print passed, failed, skipped, coverage and the failures as JSON")
    r.add_argument("-v", "--verbose", action="store_true", help="one line per test")
    r.set_defaults(func=run_run)


def _common(p) -> None:
    p.add_argument("-t", "--target", metavar="TARGET",
                   help="target to generate the suite for (default: the DUT's, npu-edge; "
                        "npu-tiny for rtl)")
    p.add_argument("--only", metavar="PATTERN",
                   help="tests whose name matches: a glob, substring or regex; "
                        "comma-separated patterns are or-ed")


def _entries(args, default="npu-edge"):
    from npusim.conformance.suite import select, suite
    target = args.target or default
    return target, select(suite(target), args.only)


def run_list(args) -> int:
    from npusim.conformance.suite import dropped
    target, entries = _entries(args)
    gone = dropped(target)
    if args.json:
        print(json.dumps({"target": target, "tests": len(entries),
                          "dropped": [{"name": n, "reason": r} for n, r in gone],
                          "items": [{"name": e.name, "doc": e.test.doc, "cores": e.test.num_cores,
                                     "instructions": e.test.instructions,
                                     "signature_bytes": e.test.sig_bytes, "labels": e.labels}
                                    for e in entries]}, indent=1))
        return 0
    width = max([len(e.name) for e in entries] + [4])
    for e in entries:
        corners = [f"{lab.split('|')[0]}:{lab.rsplit('|', 1)[1]}" for lab in e.labels
                   if "|semantic:" in lab]
        print(f"{e.name:<{width}}  {e.test.instructions:>4} instr  {len(e.labels):>3} bins  "
              f"{', '.join(dict.fromkeys(corners))}")
    print(f"{len(entries)} tests on {target}" + (
        f"; {len(gone)} not generated: their sizes do not fit it (--json lists why)"
        if gone else ""))
    return 0


def run_coverage(args) -> int:
    from isa.target import Target
    from npusim.conformance import coverage
    target, entries = _entries(args)
    hit = set().union(*(e.expected.hits for e in entries)) if entries else set()
    rep = coverage.report(hit, Target.create(target))
    if args.json:
        print(json.dumps({"target": target, "tests": len(entries), **rep.to_json(),
                          "table": rep.table()}, indent=1))
        return 0
    print(f"{'instruction':<10} {'class':<9} {'bins':>5} {'covered':>8} {'%':>6}  uncovered")
    for row in rep.table():
        print(f"{row['instruction']:<10} {row['class']:<9} {row['bins']:>5} {row['covered']:>8} "
              f"{row['percent']:>6.1f}  {', '.join(row['uncovered'])}")
    print(f"\n{len(entries)} tests on {target}: {len(rep.covered)} of {len(rep.counted)} bins "
          f"({100 * rep.fraction:.1f}%); instructions {100 * rep.of('op'):.0f}%, enum values "
          f"{100 * rep.of('enum'):.0f}%; {len(rep.exempt)} exempt (illegal combinations)")
    return 0


def run_run(args) -> int:
    from npusim.conformance.registry import load_dut
    from npusim.conformance.junit import write_junit
    from npusim.conformance.runner import run
    dut = load_dut(args.dut)
    target, entries = _entries(args, getattr(dut, "default_target", "npu-edge"))
    if args.timing and not dut.reports_cycles:
        from npusim.cli.errors import UsageError
        raise UsageError(f"--timing needs a DUT that reports cycles; '{dut.name}' does not "
                         "(use --dut timing or --dut rtl)")
    result = run(entries, dut, target, jobs=args.jobs, timing=args.timing)
    if args.junit:
        write_junit(args.junit, result)
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        print(result.table(args.verbose))
    sys.stdout.flush()
    return 0 if result.ok else 1
