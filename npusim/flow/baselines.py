"""compare(): the same model (the same quantized graph, or the same float graph for fp16 NPU
builds) built for cpu/gpu Targets, run (or estimated) and verified next to the simulated NPU."""

from __future__ import annotations

import time
from typing import Any, Mapping

from npusim.flow.errors import FlowError


def compare(compiled, result, targets: Mapping[str, Any], **build_options: Any) -> dict:
    """{label: entry} for each cpu/gpu target, recorded on `result` (result.backends).

    An entry: target, kind, dtype, latency_ms, measured (False: the gpu roofline estimate,
    no CUDA device), verified, bit_exact, max_rel_error, cpu_ms, build_s, note, npu_speedup
    (backend latency / NPU latency). A backend that fails (no C compiler, a CUDA error)
    gets an entry with `error` (its first line) instead; the NPU's result stands."""
    from isa.checks import target_name
    from isa.errors import NpusimError
    if not compiled.has_model or result.feeds is None:
        raise FlowError(f"{compiled.name}: compare() needs the model to build for the other "
                        "backends; an artifact loaded from disk has none")
    npu_ms = result.latency_ms
    entries = {}
    for label, target in targets.items():
        from isa.target import Target
        target = Target.create(target)
        try:
            entry = evaluate(compiled, result.feeds, target, **build_options)
            entry["npu_speedup"] = entry["latency_ms"] / npu_ms if npu_ms else None
        except NpusimError as e:
            entry = {"target": target_name(target), "kind": target.kind, "latency_ms": None,
                     "measured": False, "verified": None, "npu_speedup": None,
                     "error": str(e).splitlines()[0]}
        entries[label] = entry
    result.backends = entries
    return entries


def evaluate(compiled, feeds: dict, target, **build_options: Any) -> dict:
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
