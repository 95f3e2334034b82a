"""Array size x DRAM bandwidth x DMA engines over ResNet-18, ResNet-50 and MobileNetV2: the
27-point grid of array_bw_dma.toml, its table per model and its latency/energy/area front.

    python experiments/dse/sweep_array_bw_dma.py [--jobs 2] [--resolution 64] [--dask ADDR]

Interrupt it at any time and run it again: it resumes (the storage is array_bw_dma.db)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import parser, run, space  # noqa: E402


def main() -> int:
    args = parser(__doc__).parse_args()
    s = space("array_bw_dma.toml", args.resolution)
    summary, df = run(args, s)
    from npusim import dse
    cols = ["array", "dram-bw", "dma-engines"]
    per = [f"latency_ms[{w.label}]" for w in s.workloads]
    ok = df[df["status"] == "ok"]
    print(ok[cols + per + ["energy_uj", "area_mm2"]].sort_values(cols).to_string(
        index=False, float_format=lambda v: f"{v:.4g}"))
    bad = df[df["status"] != "ok"]
    for _, r in bad.iterrows():
        print(f"{r['status']}: {' '.join(f'{c}={r[c]}' for c in cols)}: {r['reason']}")
    front = dse.pareto_front(df)
    print(f"\nPareto front over {', '.join(s.objectives)} (geometric mean over "
          f"{', '.join(w.label for w in s.workloads)}): {len(front)} of {len(ok)} ok points")
    print(front[cols + list(s.objectives)].to_string(index=False,
                                                      float_format=lambda v: f"{v:.4g}"))
    print(f"\n{summary['evaluated']} points evaluated in {summary['wall_s']:.0f} s "
          f"({summary['points_per_hour']:.0f}/hour); stored in {summary['storage']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
