"""Per-layer compute cycles of `npusim scalesim` against what SCALE-Sim 3.0.0 printed, on the
shared sample's measured runs (ideal memory), for both ways a conv becomes a program.

    python experiments/scalesim_fidelity.py [--shared tests/scalesim/sample] [--markdown]

SCALE-Sim's compute cycles are its Total Cycles minus its Stall Cycles (0 with CALC); ours
are the Compute Cycles column (the array's busy cycles, the sum of our matrix instructions).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from npusim.scalesim import read_config, read_topology, run

RUNS = {  # measured/<run> -> (config, topology, format)
    "r18_ws_32x32": ("r18_ws_32x32.cfg", "conv_nets/Resnet18.csv", "conv"),
    "r18_os_32x32": ("r18_os_32x32.cfg", "conv_nets/Resnet18.csv", "conv"),
    "gemm_ws_32x32": ("gemm_ws_32x32.cfg", "GEMM_mnk/test_mnk_input.csv", "gemm"),
    "gemm_os_32x32": ("gemm_os_32x32.cfg", "GEMM_mnk/test_mnk_input.csv", "gemm"),
}


def scalesim_compute(shared: Path, name: str) -> list:
    lines = (shared / "measured" / name / "COMPUTE_REPORT.csv").read_text().splitlines()[1:]
    rows = [[v.strip() for v in line.split(",")] for line in lines if line.strip()]
    return [int(r[2]) - int(r[3]) for r in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path,
                    default=Path(__file__).resolve().parents[1] / "tests" / "scalesim" / "sample")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args()
    for name, (cfg, topo, fmt) in RUNS.items():
        theirs = scalesim_compute(args.shared, name)
        config = read_config(args.shared / "configs" / cfg)
        topology = read_topology(args.shared / "topologies" / topo, fmt)
        ours = {lw: run(config, topology, lowering=lw) for lw in ("conv", "gemm")}
        head = ["LayerID", "Layer", "SCALE-Sim", "ours (conv)", "ratio", "ours (gemm)", "ratio",
                "matrix instr. (conv)"]
        rows = []
        for i, layer in enumerate(topology.layers):
            c = ours["conv"].layers[i].rows["ours_compute"]
            g = ours["gemm"].layers[i].rows["ours_compute"]
            rows.append([str(i), layer.name, str(theirs[i]), str(c["Compute Cycles"]),
                         f"{c['Compute Cycles'] / theirs[i]:.3f}", str(g["Compute Cycles"]),
                         f"{g['Compute Cycles'] / theirs[i]:.3f}", str(c["Matrix Instructions"])])
        tot = sum(theirs)
        tc, tg = (ours[lw].total("Compute Cycles") for lw in ("conv", "gemm"))
        rows.append(["", "total", str(tot), str(tc), f"{tc / tot:.3f}", str(tg), f"{tg / tot:.3f}",
                     ""])
        within = sum(abs(float(r[4]) - 1) <= 0.02 for r in rows[:-1])
        print(f"\n{name} ({config.dataflow}, {topology.name}): {within} of {len(rows) - 1} "
              "layers within 2% (conv lowering)")
        if args.markdown:
            print("| " + " | ".join(head) + " |")
            print("|" + "---|" * len(head))
            for r in rows:
                print("| " + " | ".join(r) + " |")
        else:
            w = [max(len(x[j]) for x in [head] + rows) for j in range(len(head))]
            for r in [head] + rows:
                print("  ".join(v.rjust(w[j]) if j != 1 else v.ljust(w[j]) for j, v in
                                enumerate(r)))


if __name__ == "__main__":
    main()
