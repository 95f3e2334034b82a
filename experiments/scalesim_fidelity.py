"""Per-layer compute cycles of `npusim scalesim` against SCALE-Sim 3.0.0's, on the shared
sample (ideal memory): its measured runs, and with --all every topology of the sample.

    python experiments/scalesim_fidelity.py [--shared tests/scalesim/sample] [--markdown]
        [--all] [--lowering conv|gemm|both] [--target-attrs ATTRS]

SCALE-Sim's compute cycles are its Total Cycles minus its Stall Cycles (0 with CALC) where it
was measured; for the other topologies (--all) they are its closed forms
(compute/systolic_compute_{ws,os}.py), which its measured reports match exactly
(tests/scalesim/test_scalesim_fidelity.py checks that). Ours are the Compute Cycles column
(the array's busy cycles, the sum of our matrix instructions).
"""

from __future__ import annotations

import argparse
from math import ceil
from pathlib import Path

from npusim.scalesim import read_config, read_topology, run

RUNS = {  # measured/<run> -> (config, topology, format)
    "r18_ws_32x32": ("r18_ws_32x32.cfg", "conv_nets/Resnet18.csv", "conv"),
    "r18_os_32x32": ("r18_os_32x32.cfg", "conv_nets/Resnet18.csv", "conv"),
    "gemm_ws_32x32": ("gemm_ws_32x32.cfg", "GEMM_mnk/test_mnk_input.csv", "gemm"),
    "gemm_os_32x32": ("gemm_os_32x32.cfg", "GEMM_mnk/test_mnk_input.csv", "gemm"),
}
ALL_CONFIGS = ("r18_ws_32x32.cfg", "r18_os_32x32.cfg")  # scale.cfg, ws and os


def scalesim_compute(shared: Path, name: str) -> list:
    lines = (shared / "measured" / name / "COMPUTE_REPORT.csv").read_text().splitlines()[1:]
    rows = [[v.strip() for v in line.split(",")] for line in lines if line.strip()]
    return [int(r[2]) - int(r[3]) for r in rows]


def closed_form(dataflow: str, layer, rows: int, cols: int) -> int:
    """SCALE-Sim 3.0's compute cycles of one layer: ws ceil(K/R) * ceil(N/C) * (2R + C + M - 2)
    - 1, os ceil(M/R) * ceil(N/C) * (K + R + C - 2) - 1 (M ofmap pixels, N filters, K the
    window; the topology reader already made a "DP" layer one layer per channel)."""
    m, n, k = layer.m, layer.n, layer.k
    if dataflow == "ws":
        return ceil(k / rows) * ceil(n / cols) * (2 * rows + cols + m - 2) - 1
    return ceil(m / rows) * ceil(n / cols) * (k + rows + cols - 2) - 1


def table(name, config, topology, theirs, lowerings, attrs, markdown) -> None:
    ours = {lw: run(config, topology, lowering=lw, overrides=attrs) for lw in lowerings}
    head = ["LayerID", "Layer", "SCALE-Sim"]
    for lw in lowerings:
        head += [f"ours ({lw})", "ratio"]
    head.append(f"matrix instr. ({lowerings[0]})")
    rows = []
    for i, layer in enumerate(topology.layers):
        row = [str(i), layer.name, str(theirs[i])]
        for lw in lowerings:
            c = ours[lw].layers[i].rows["ours_compute"]["Compute Cycles"]
            row += [str(c), f"{c / theirs[i]:.3f}"]
        row.append(str(ours[lowerings[0]].layers[i].rows["ours_compute"]["Matrix Instructions"]))
        rows.append(row)
    tot = sum(theirs)
    last = ["", "total", str(tot)]
    for lw in lowerings:
        t = ours[lw].total("Compute Cycles")
        last += [str(t), f"{t / tot:.3f}"]
    rows.append(last + [""])
    within = sum(abs(float(r[4]) - 1) <= 0.02 for r in rows[:-1])
    print(f"\n{name} ({config.dataflow}, {topology.name}): {within} of {len(rows) - 1} "
          f"layers within 2% ({lowerings[0]} lowering)")
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        w = [max(len(x[j]) for x in [head] + rows) for j in range(len(head))]
        for r in [head] + rows:
            print("  ".join(v.rjust(w[j]) if j != 1 else v.ljust(w[j]) for j, v in enumerate(r)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path,
                    default=Path(__file__).resolve().parents[1] / "tests" / "scalesim" / "sample")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--all", action="store_true",
                    help="also every topology of the sample, against SCALE-Sim's closed forms")
    ap.add_argument("--lowering", choices=("conv", "gemm", "both"), default="both")
    ap.add_argument("--target-attrs", default="", metavar="ATTRS",
                    help="npu attributes over the config's, as npusim scalesim takes them")
    args = ap.parse_args()
    lowerings = ("conv", "gemm") if args.lowering == "both" else (args.lowering,)
    for name, (cfg, topo, fmt) in RUNS.items():
        config = read_config(args.shared / "configs" / cfg)
        topology = read_topology(args.shared / "topologies" / topo, fmt)
        table(name, config, topology, scalesim_compute(args.shared, name), lowerings,
              args.target_attrs, args.markdown)
    if not args.all:
        return
    paths = [(p, "conv") for p in sorted((args.shared / "topologies" / "conv_nets").glob("*.csv"))]
    paths += [(p, "gemm") for p in sorted((args.shared / "topologies" / "GEMM_mnk").glob("*.csv"))]
    for cfg in ALL_CONFIGS:
        config = read_config(args.shared / "configs" / cfg)
        for path, fmt in paths:
            topology = read_topology(path, fmt)
            theirs = [closed_form(config.dataflow, x, config.array_rows, config.array_cols)
                      for x in topology.layers]
            table(f"{config.run_name} closed form", config, topology, theirs, lowerings,
                  args.target_attrs, args.markdown)


if __name__ == "__main__":
    main()
