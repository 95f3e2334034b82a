"""What the in-order dispatcher's full queues cost: each case's program, compiled once for its
Target, simulated again with deeper unit queues (`-queue-depth`), so that dispatch never waits
behind a full queue. The cycles saved bound what any reordering of the same per-unit streams
against dispatch blocking could gain (the scheduler, compiler/backends/npu/schedule.py,
already orders by estimated start with the queues modelled).

    python experiments/dispatch_bound.py [--only mobilenetv2] [--depths 16,64,256]

Per case: cycles at the Target's depth and at each deeper one, the saving, and the matrix
unit's cycles without work (waits included: the time the array is not computing). Timing-only
simulation (the cycles a functional run gives)."""

from __future__ import annotations

import argparse

from npusim import flow

CASES = [  # (model, target)
    ("mobilenetv2", "npu-edge -depthwise-mode=1 -weight-buffers=2"),
    ("mobilenetv2", "npu-edge -depthwise-mode=1"),
    ("mobilenetv2", "npu-edge"),
    ("resnet18", "npu-edge"),
    ("resnet50", "npu-edge"),
    ("resnet50", "npu-server"),
    ("bert-tiny", "npu-edge"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run the cases whose model or target contains this")
    ap.add_argument("--depths", default="16,64,256", help="deeper queue depths (entries)")
    a = ap.parse_args()
    depths = [int(d) for d in a.depths.split(",")]
    print(f"{'model':<12} {'target':<45} {'cycles':>11} " +
          " ".join(f"{f'depth {d}':>17}" for d in depths) + f" {'array without work':>19}")
    for model, target in CASES:
        if a.only and a.only not in model and a.only not in target:
            continue
        c = flow.compile(model, target)
        base = flow.simulate(c, timing_only=True)
        line = f"{model:<12} {target:<45} {base.cycles:>11,}"
        for d in depths:
            cyc = flow.simulate(c, target=f"{target} -queue-depth={d}", timing_only=True).cycles
            line += f" {cyc:>10,} {(base.cycles - cyc) / base.cycles:>6.3%}"
        units = base.units
        array = units[units.index.str.endswith(".matrix")]
        line += f" {int((base.cycles * len(array) - array['busy'].sum())):>19,}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
