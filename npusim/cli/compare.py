"""`npusim run MODEL --compare cpu,gpu`: the flag, its parsing, and the comparison table; the
baselines themselves are npusim.flow.compare (the same quantized graph through the cpu/gpu
backends, next to the simulated NPU)."""

from __future__ import annotations

from pathlib import Path

from npusim.cli.errors import UsageError

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


def parse_compare(spec: str, model: str) -> list:
    """'cpu,gpu-h100' -> [(label, Target), ...]; a bad list is a one-line error."""
    from isa.target import Target, TargetError
    from npusim.cli.options import all_target_kinds
    all_target_kinds()
    if Path(model).is_dir():
        raise UsageError(f"--compare needs a model (zoo name or .onnx) to build for the other "
                         f"backends; '{model}' is an artifact directory")
    out, labels = [], set()
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        try:
            target = Target.create(DEFAULT_TAGS.get(item, item))
        except TargetError as e:
            raise UsageError(f"--compare {item!r}: {e}") from None
        if target.kind not in KINDS:
            raise UsageError(f"--compare {item!r} is a {target.kind} target; compare with cpu "
                             "or gpu targets (the NPU target is -t)")
        label = item if item in DEFAULT_TAGS else (target.tag or target.kind)
        if label in labels:
            label = f"{label}#{len(out)}"
        labels.add(label)
        out.append((label, target))
    if not out:
        raise UsageError("--compare needs at least one backend, e.g. --compare cpu,gpu")
    return out


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
