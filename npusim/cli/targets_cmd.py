"""`npusim targets [TARGET] [--json]`: list the target tags, or resolve one target string."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Mapping

from isa.target import TARGET_TAGS, Target, TargetError, get_target_kind
from npusim.cli.errors import fail

KEY_ATTRS = 4  # kinds declare their attributes most important first; the listing shows these


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "targets", help="list target tags, or resolve a target and print its attributes",
        description="Without TARGET, list the named targets (tags). With TARGET, print every "
                    "attribute and derived value of it.",
        epilog="examples: npusim targets npu-tiny; npusim targets npu -array=8x8 "
               "-dma-engines=1; npusim targets npu-edge -num-cores=2 --json")
    # REMAINDER: `-array=8x8` must reach Target.from_string, not argparse's option parser.
    p.add_argument("target", nargs=argparse.REMAINDER, metavar="TARGET",
                   help="a tag (npu-edge), a target string (npu -array=8x8), a tag with "
                        "overrides, or a JSON dict")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def _plain(value):
    """Derived values hold read-only mappings; JSON and printing want dicts."""
    return dict(value) if isinstance(value, Mapping) else value


def derived_dict(target: Target) -> dict:
    d = target.derived
    return {f.name: _plain(getattr(d, f.name)) for f in dataclasses.fields(d)} if d else {}


def target_dict(target: Target) -> dict:
    attrs = target.to_dict()
    kind, tag = attrs.pop("kind"), attrs.pop("tag")
    out = {"kind": kind, "tag": tag, "target": str(target), "attrs": attrs,
           "derived": derived_dict(target)}
    if kind == "npu":  # mm^2 at 45 nm (npusim.hw.area, docs/energy.md)
        from npusim.hw.area import area_breakdown
        parts = area_breakdown(target)
        out["area_mm2"] = sum(parts.values())
        out["area_breakdown"] = parts
    return out


def _key_attrs(target: Target) -> str:
    return " ".join(f"-{name}={value}" for name, value, _, _ in target.describe()[:KEY_ATTRS])


def list_tags(as_json: bool) -> str:
    targets = {name: Target(name) for name in TARGET_TAGS}
    if as_json:
        return json.dumps([{"name": n, "kind": t.kind, "description": TARGET_TAGS[n].description,
                            **target_dict(t)} for n, t in targets.items()], indent=2)
    rows = [("tag", "kind", "key attributes", "description")]
    rows += [(n, t.kind, _key_attrs(t), TARGET_TAGS[n].description) for n, t in targets.items()]
    w = [max(len(r[c]) for r in rows) for c in range(3)]
    return "\n".join(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]}" for r in rows)


def _format(value) -> str:
    value = _plain(value)
    if isinstance(value, dict):
        return " ".join(f"{k}={_format(v)}" for k, v in value.items())
    return f"{value:g}" if isinstance(value, float) else str(value)


def show(target: Target) -> str:
    kind = get_target_kind(target.kind)
    lines = [f"target  {target}", f"kind    {target.kind} ({kind.doc})",
             f"tag     {target.tag or '-'}", ""]
    rows = [(n, v, u or "", doc) for n, v, u, doc in target.describe()]
    w = [max(len(r[c]) for r in rows) for c in range(3)]
    lines += [f"  {n:<{w[0]}}  {v:<{w[1]}}  {u:<{w[2]}}  {doc}" for n, v, u, doc in rows]
    derived = derived_dict(target)
    if derived:
        lines += ["", "derived"]
        width = max(map(len, derived))
        lines += [f"  {k:<{width}}  {_format(v)}" for k, v in derived.items()]
    if target.kind == "npu":
        lines += ["", *area_lines(target)]
    return "\n".join(lines)


def area_lines(target: Target) -> list[str]:
    """The area at 45 nm, total and by component (mm^2 and share)."""
    from npusim.hw.area import area_breakdown
    from npusim.hw.cell_lib import NODE_NM
    parts = area_breakdown(target)
    total = sum(parts.values())
    cores = f", {target.num_cores} cores" if target.num_cores > 1 else ""
    lines = [f"area    {total:.3f} mm2 at {NODE_NM} nm (logic fitted to Yosys synthesis + SRAM"
             f"{cores}; docs/energy.md)"]
    width = max(map(len, parts))
    lines += [f"  {k:<{width}}  {v:8.4f} mm2  {100 * v / total:5.1f}%" for k, v in parts.items()]
    return lines


def _parse(tokens: list[str]) -> Target:
    text = " ".join(tokens).strip()
    if text.startswith("{"):
        try:
            return Target.create(json.loads(text))
        except json.JSONDecodeError as e:
            raise TargetError(f"target '{text}' is not valid JSON: {e.msg} at column {e.colno}")
    return Target.from_string(text)


def run(args) -> int:
    from npusim.cli.options import all_target_kinds
    all_target_kinds()
    tokens = list(args.target)
    as_json = args.json or "--json" in tokens  # REMAINDER keeps a trailing --json
    tokens = [t for t in tokens if t != "--json"]
    if not tokens:
        print(list_tags(as_json))
        return 0
    try:
        target = _parse(tokens)
    except TargetError as e:
        return fail(str(e))
    print(json.dumps(target_dict(target), indent=2) if as_json else show(target))
    return 0
