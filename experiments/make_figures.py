"""The figures of README and docs/report.md (docs/img/*.png), one of each kind, regenerated from
real runs: ResNet-18 on npu-edge (with its trace), compared with cpu-host and gpu-a100, against
a faster DRAM, and a small sweep of array size x DRAM bandwidth for the DSE figures.

    python experiments/make_figures.py [--out docs/img] [--resolution 224]

Prints each file written. The sweep uses npusim.dse's study table columns (target, status,
the attributes, the objectives) so the figures are those `npusim report` draws for a study."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from npusim import flow, report
from npusim.report import style

ROOT = Path(__file__).resolve().parents[1]
SWEEP_ARRAYS = (8, 16, 32)
SWEEP_DRAM_BW = (8, 16, 32)
SWEEP_DMA = (1, 2)


def area_of(target):
    """mm² of a Target where npusim.hw has the area model (area_mm2), else None (the RTL cell
    table covers only the synthesized configurations: too few points for a front)."""
    try:
        from npusim.hw.area import area_mm2
    except ImportError:
        return None
    return float(area_mm2(target))


def sweep(resolution: int) -> tuple:
    """(trial table, attributes, objectives): ResNet-18 timing-only over array x DRAM bw; a
    configuration that does not compile is an infeasible trial."""
    from isa.errors import NpusimError
    rows = []
    for a in SWEEP_ARRAYS:
        for dma in SWEEP_DMA:
            base = f"npu-edge -array={a}x{a} -dma-engines={dma}"
            try:
                compiled = flow.compile("resnet18", base, resolution=resolution)
            except NpusimError as e:
                compiled, reason = None, str(e).splitlines()[0]
            for bw in SWEEP_DRAM_BW:
                target = f"{base} -dram-bw={bw}"
                row = {"target": target, "array": a, "dma_engines": dma, "dram_bw": bw,
                       "status": "ok", "reason": ""}
                area = area_of(target)
                if area is not None:
                    row["area_mm2"] = area
                t0 = time.perf_counter()
                if compiled is None:
                    row.update(status="infeasible", reason=reason)
                else:  # DRAM bandwidth is a timing attribute: one program runs on each
                    r = flow.simulate(compiled, target=target, timing_only=True)
                    row.update(cycles=r.cycles, energy_pj=r.energy_pj,
                               dram_bytes=r.to_json()["dram_bytes"])
                row["wall_s"] = time.perf_counter() - t0
                rows.append(row)
    df = pd.DataFrame(rows)
    objectives = ["cycles", "energy_pj", "area_mm2" if "area_mm2" in df else "dram_bytes"]
    return df, ["array", "dma_engines", "dram_bw"], objectives


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"))
    ap.add_argument("--resolution", type=int, default=224)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    compiled = flow.compile("resnet18", "npu-edge", resolution=args.resolution)
    run = flow.simulate(compiled, trace=True)
    flow.verify(compiled, run)
    flow.compare(compiled, run, {"cpu": "cpu-host", "gpu": "gpu-a100"})
    faster = flow.simulate(compiled, target="npu-edge -dram-bw=32", timing_only=True)
    t = run.target
    figures = {
        "report_layer_cycles": report.layer_cycles(run.layers),
        "report_roofline": report.roofline(run.layers, t.derived.peak_macs_per_cycle, t.dram_bw),
        "report_timeline": report.timeline(run.trace, run.layers, cycles=run.cycles,
                                           dram_bytes_per_cycle=t.dram_bw),
        "report_unit_breakdown": report.unit_breakdown(run.units),
        "report_backends": report.backends(report.compare_frame(run.to_json())),
        "report_layer_deltas": report.layer_deltas(faster.layers, run.layers,
                                                   label="dram-bw=32", baseline_label="16"),
    }
    df, attributes, objectives = sweep(min(args.resolution, 112))
    figures |= {
        "report_pareto": report.pareto_fronts(df, objectives),
        "report_parallel": report.parallel_coordinates(df, attributes, objectives),
        "report_importance": report.param_importance(df, attributes, objectives),
        "report_sensitivity": report.sensitivity(df, attributes, objectives),
    }
    from isa.files import write_atomic
    for name, fig in figures.items():
        write_atomic(out / f"{name}.png", style.to_bytes(fig, "png"))
        print(out / f"{name}.png")


if __name__ == "__main__":
    main()
