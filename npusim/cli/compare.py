"""CPU and GPU baselines for the CLI: `npusim run MODEL --compare cpu,gpu` runs the same model
(the same quantized graph) through the cpu/gpu backends next to the simulated NPU, and
`npusim compile MODEL -t cpu-host -o DIR` writes the C sources and the built library to DIR
(CUDA sources: compiler.backends.build(model, "gpu-a100", out_dir=DIR))."""

from __future__ import annotations

import time
from pathlib import Path

from npusim.cli.main import fail

DEFAULT_TAGS = {"cpu": "cpu-host", "gpu": "gpu-a100"}
BUSY = 1.3  # wall time over CPU time above which the table says the host was busy
KINDS = ("cpu", "gpu")


def add_arguments(parser) -> None:
    parser.add_argument(
        "--compare", metavar="BACKENDS",
        help="also run the model on these backends and report the NPU's speedup over each: "
             "comma-separated 'cpu', 'gpu' (tags cpu-host, gpu-a100) or target tags/strings "
             "such as gpu-h100 or 'cpu-host -openmp=1'; the GPU is measured where a CUDA "
             "device exists, otherwise estimated by its roofline (and labelled so)")


def parse_compare(spec: str, model: str) -> tuple:
    """'cpu,gpu-h100' -> ([(label, Target), ...], None) or (None, error message)."""
    from isa.target import Target, TargetError
    if Path(model).is_dir():
        return None, (f"--compare needs a model (zoo name or .onnx) to build for the other "
                      f"backends; '{model}' is an artifact directory")
    out, labels = [], set()
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        try:
            target = Target.create(DEFAULT_TAGS.get(item, item))
        except TargetError as e:
            return None, f"--compare {item!r}: {e}"
        if target.kind not in KINDS:
            return None, (f"--compare {item!r} is a {target.kind} target; compare with cpu or "
                          "gpu targets (the NPU target is -t)")
        label = item if item in DEFAULT_TAGS else (target.tag or target.kind)
        if label in labels:
            label = f"{label}#{len(out)}"
        labels.add(label)
        out.append((label, target))
    if not out:
        return None, "--compare needs at least one backend, e.g. --compare cpu,gpu"
    return out, None


def evaluate(compiled, feeds: dict, target, **build_options) -> dict:
    """Build the NPU run's own model for `target`, run (or estimate) it, and verify it."""
    from compiler.backends import build
    from isa.checks import target_name
    model = compiled.module if compiled.quantized else compiled.float_graph
    dtype = "int8" if compiled.quantized else "float32"
    t0 = time.perf_counter()
    module = build(model, target, dtype=dtype, **build_options)
    build_s = time.perf_counter() - t0
    r = module.evaluate(feeds)
    return {"target": target_name(target), "kind": target.kind, "dtype": dtype,
            "latency_ms": r["latency_ms"], "measured": bool(r["measured"]),
            "verified": r["verified"], "bit_exact": r.get("bit_exact"),
            "max_rel_error": r.get("max_rel_error"), "cpu_ms": r.get("cpu_ms"),
            "build_s": build_s, "note": r.get("note", "")}


def attach(targets: list, compiled, feeds: dict, summary: dict) -> None:
    """summary['backends'][label] = {latency_ms, measured, verified, npu_speedup, ...}."""
    from compiler.errors import CompilerError
    from isa.checks import target_name
    npu_ms = summary["latency_ms"]
    summary["backends"] = {}
    for label, target in targets:
        try:
            entry = evaluate(compiled, feeds, target)
            entry["npu_speedup"] = entry["latency_ms"] / npu_ms if npu_ms else None
        except CompilerError as e:  # e.g. no C compiler: the NPU's result still stands
            entry = {"target": target_name(target), "kind": target.kind, "latency_ms": None,
                     "measured": False, "verified": None, "npu_speedup": None,
                     "error": str(e).splitlines()[0]}
        summary["backends"][label] = entry


def table(summary: dict) -> str:
    head = f"{'backend':<10} {'target':<14} {'latency ms':>11} {'figure':<10} " \
           f"{'verified':<18} {'NPU speedup':>11}"
    npu_check = {True: "yes", False: "NO", None: "n/a"}[summary.get("verified")]
    rows = [head, "-" * len(head),
            f"{'npu':<10} {summary['target'].split(' -')[0]:<14} {summary['latency_ms']:>11.4g} "
            f"{'simulated':<10} {npu_check:<18} {'1x':>11}"]
    for label, b in summary.get("backends", {}).items():
        if b.get("error"):
            rows.append(f"{label:<10} {b['target'].split(' -')[0]:<14} error: {b['error']}")
            continue
        if b["verified"] is None:
            check = "n/a (not run)"
        elif b["bit_exact"] is not None:
            check = "yes (bit-exact)" if b["verified"] else "NO (mismatch)"
        else:
            check = f"{'yes' if b['verified'] else 'NO'} (err {b['max_rel_error']:.1e})"
        rows.append(f"{label:<10} {b['target'].split(' -')[0]:<14} {b['latency_ms']:>11.4g} "
                    f"{'measured' if b['measured'] else 'estimated':<10} {check:<18} "
                    f"{b['npu_speedup']:>10.3g}x")
    for label, b in summary.get("backends", {}).items():
        cpu_ms = b.get("cpu_ms")
        if cpu_ms and b["latency_ms"] > BUSY * cpu_ms:  # waiting for a core, not computing
            rows.append(f"{label}: the host was busy: median wall {b['latency_ms']:.4g} ms, CPU "
                        f"time {cpu_ms:.4g} ms (NPU speedup over that: "
                        f"{cpu_ms / summary['latency_ms']:.3g}x)")
    estimated = [label for label, b in summary.get("backends", {}).items()
                 if not b["measured"] and not b.get("error")]
    if estimated:
        rows.append(f"estimated: {', '.join(estimated)} (roofline of the target: no device "
                    "ran it); NPU speedup = backend latency / NPU latency")
    return "\n".join(rows)


def finish(summary: dict, as_json: bool, npu_ok: bool) -> int:
    """Print the comparison table (text mode); exit 1 if anything failed verification."""
    if not as_json:
        print("\n" + table(summary))
    failed = [b for b in summary.get("backends", {}).values()
              if b["verified"] is False or b.get("error")]
    return 0 if npu_ok and not failed else 1


# ------------------------------------------------------------------ npusim compile -t cpu

def compile_other(args) -> int | None:
    """`npusim compile` for cpu targets; None for the others (npu, and unparsable targets,
    which the npu path reports)."""
    from isa.target import Target, TargetError
    try:
        target = Target.create(args.target)
    except TargetError:
        return None
    if target.kind != "cpu":
        return None
    from compiler.errors import CompilerError
    from npusim.cli.run_cmd import check_model_arg, compile_model
    err = check_model_arg(args.model)
    if err:
        return fail(err)
    try:
        module = compile_model(args.model, target, args.resolution, out_dir=args.output)
    except CompilerError as e:
        return fail(str(e).splitlines()[0])
    except OSError as e:
        return fail(f"cannot write '{args.output}': {e.strerror or e}")
    prog = module.program
    print(f"{args.output}: {args.model} for {target.tag or target.kind}: {len(prog.kernels)} "
          f"kernels, {prog.source.count(chr(10)):,} lines of C; model.c, libmodel.so "
          f"({' '.join(Path(c).name if c.startswith('/') else c for c in module.command)}), "
          f"constants.bin ({prog.layout.const_bytes:,} B), manifest.json; "
          f"{prog.layout.arena_bytes:,} B activations")
    return 0
