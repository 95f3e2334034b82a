"""The figures of README and docs/report.md (docs/img/*.png), one of each kind, regenerated from
real runs: ResNet-18 on npu-edge (with its trace), compared with cpu-host and gpu-a100, against
a faster DRAM, and an `npusim dse` grid (array x DRAM bandwidth x DMA engines) for the DSE
figures.

    python experiments/make_figures.py [--out docs/img] [--resolution 224]

Prints each file written."""

from __future__ import annotations

import argparse
from pathlib import Path

from npusim import flow, report
from npusim.report import style

ROOT = Path(__file__).resolve().parents[1]
SWEEP = """
[study]
name = "figures"
base = "npu-edge"
sampler = "grid"
seed = 0
[workloads]
models = ["resnet18"]
resolution = {resolution}
[space]
array = ["8x8", "16x16", "32x32"]
dram-bw = [8, 16, 32]
dma-engines = [1, 2]
[objectives]
minimize = ["latency_ms", "energy_uj", "area_mm2"]
"""


def sweep(resolution: int) -> tuple:
    """(trial table, attributes, objectives) of an `npusim dse` grid study (ResNet-18,
    array x DRAM bw x DMA engines), run in a temporary folder: the table `npusim report`
    draws for a study."""
    import tempfile
    from npusim import dse
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "figures.toml"
        path.write_text(SWEEP.format(resolution=resolution))
        space = dse.load_space(path)
        dse.run_study(space, jobs=2, progress=False)
        df = dse.load(space)
    return df, space.param_names, list(space.objectives)


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
