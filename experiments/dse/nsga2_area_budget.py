"""NSGA-II search over latency, energy and area under an area budget (nsga2_area_budget.toml:
array, lanes, DRAM bandwidth, DMA engines and two buffer sizes; ResNet-18 and MobileNetV2).

    python experiments/dse/nsga2_area_budget.py [--jobs 2] [--trials 96] [--resolution 64]

Points over the budget are stored as infeasible (the search is told, and steers away); the
front printed is that of the points within it."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import parser, run, space  # noqa: E402


def main() -> int:
    args = parser(__doc__).parse_args()
    s = space("nsga2_area_budget.toml", args.resolution)
    summary, df = run(args, s)
    from npusim import dse
    budget = s.constraints["area_mm2"]["max"]
    counts = df["status"].value_counts().to_dict()
    print(f"{len(df)} points: {counts}; area budget {budget} mm^2")
    front = dse.pareto_front(df)
    cols = [p.name for p in s.params] + list(s.objectives)
    print(f"Pareto front within the budget: {len(front)} points")
    print(front[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    by_gen = df.assign(generation=df["trial"] // s.batch).groupby("generation")
    print("\nper generation: ok points, best latency_ms among them")
    for g, part in by_gen:
        ok = part[part["status"] == "ok"]
        best = f"{ok['latency_ms'].min():.4g}" if len(ok) else "-"
        print(f"  {g}: {len(ok)}/{len(part)} ok, best {best}")
    print(f"\n{summary['evaluated']} points evaluated in {summary['wall_s']:.0f} s; stored in "
          f"{summary['storage']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
