"""The neighbouring Targets whose programs run on a Target, and the choice among their programs."""

from __future__ import annotations

from isa.checks import target_name
from isa.target import Target

BUFFERS = ("ibuf_kb", "wbuf_kb", "abuf_kb", "obuf_kb")

# the choice simulates each distinct neighbour program (some 9 compiles and runs); above this
# many instructions of its own program a compile keeps the cost model's program (on npu-edge
# ResNet-18 at 224 has 12.8k and is searched: its ibuf-kb neighbour's program is 0.09% faster;
# MobileNetV2 38.8k and ResNet-50 67k are not): a DSE compiles thousands of large points
SEARCH_MAX_INSTRUCTIONS = 16384


def neighbours(target) -> list:
    """(knob, Target) for each Target one step from `target` whose program runs on it:
    -dram-bw twice and half (timing only), one DMA engine less (a machine with more runs its
    program), each buffer halved (its tiles fit). Doubled buffers and other arrays make
    programs the target cannot run (npusim's runtime refuses them)."""
    a = Target.create(target)
    out = [("dram-bw", a.with_attrs(dram_bw=b)) for b in (a.dram_bw * 2, a.dram_bw // 2)
           if 1 <= b <= 1024]
    if a.dma_engines > 1:
        out.append(("dma-engines", a.with_attrs(dma_engines=a.dma_engines - 1)))
    out += [(buf.replace("_", "-"), a.with_attrs(**{buf: getattr(a, buf) // 2}))
            for buf in BUFFERS if getattr(a, buf) > 1]
    return out


def verdict_key(model, target, evaluate, **options) -> str | None:
    """The compile cache's name for fastest()'s choice on (model, target, options) under
    `evaluate`, or None when it cannot be remembered: an evaluator without a `fingerprint()`
    (its identity: for npusim.flow's timing run, the simulator's code and the cycle rules in
    force), or a model the cache cannot fingerprint (compiler.cache.key)."""
    from ...cache import cache_dir, key
    fingerprint = getattr(evaluate, "fingerprint", None)
    if fingerprint is None or cache_dir() is None:
        return None
    return key("neighbours", model, target=target_name(target), evaluator=fingerprint(),
               **options)


def known_choice(entry, target):
    """A remembered choice as (knob, neighbour Target), (None, None) for the target's own
    program, or None when `entry` is missing or names no neighbour of `target` (stale or
    foreign: chosen again)."""
    if not isinstance(entry, str):
        return None
    if entry == "own":
        return None, None
    for knob, other in neighbours(target):
        if target_name(other) == entry:
            return knob, other
    return None


def fastest(own, build_for, evaluate, target):
    """`own` (a CompiledModel) or the program a neighbour's Hw makes (build_for(Target) ->
    CompiledModel), whichever `evaluate(artifact) -> cycles` (the caller's timing run on
    `target`) says is fastest; `own` on a tie. The cost model cannot rank close schedules
    (cross-layer overlap, port contention), so a neighbour's program could otherwise be
    faster than the target's own; with this choice it never is (the one it would make is
    among those compared). Skipped (own kept) above SEARCH_MAX_INSTRUCTIONS."""
    program = own.artifact.program
    if program.num_instructions > SEARCH_MAX_INSTRUCTIONS:
        return own
    best, best_cycles = own, evaluate(own.artifact)
    seen = {program.to_bytes()}
    for knob, other in neighbours(target):
        cand = build_for(other)
        image = cand.artifact.program.to_bytes()
        if image in seen:
            continue
        seen.add(image)
        cycles = evaluate(cand.artifact)
        if cycles < best_cycles:
            best, best_cycles = cand, cycles
            best.chosen_from = f"{knob} neighbour {target_name(other)}"
    return best
