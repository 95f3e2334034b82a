"""google.cfg (SCALE-Sim's 256x256 os TPU, 6 MiB SRAMs) through `npusim scalesim` on every
topology of the shared sample: per layer, our compute cycles against SCALE-Sim 3.0's closed form.

    python experiments/scalesim_google.py [--shared tests/scalesim/sample] [--markdown]
                                          [--topology conv_nets/Resnet18.csv ...]

The sample has no report SCALE-Sim printed for google.cfg, so the reference is its os closed
form, ceil(M/R) * ceil(N/C) * (K + R + C - 2) - 1, which its measured 32x32 os runs match
exactly (docs/scalesim.md). Ours are the Compute Cycles column (the sum of our matrix
instructions' cycles), with ideal memory (InterfaceBandwidth CALC, as the fidelity tables:
buffers sized to SCALE-Sim's folds), the same within the config's own SRAMs (6144 KiB ifmap
and filter, 2048 KiB ofmap, 8192 KiB of partial sums), and as the config says (USER, 10
B/cycle, the config's SRAMs: tiled for that bandwidth).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from math import ceil
from pathlib import Path

from npusim.scalesim import read_config, read_topology, run
from npusim.scalesim.target import config_buffers
TOPOLOGIES = ["conv_nets/test.csv", "conv_nets/alexnet.csv", "conv_nets/Googlenet.csv",
              "conv_nets/Resnet18.csv", "conv_nets/mobilenet.csv", "conv_nets/yolo_tiny.csv",
              "GEMM_mnk/test_mnk_input.csv", "GEMM_mnk/gpt2.csv", "GEMM_mnk/vit_s.csv"]


def scalesim_os(layer, rows: int, cols: int) -> int:
    """SCALE-Sim 3.0's output-stationary compute cycles of one layer."""
    return ceil(layer.m / rows) * ceil(layer.n / cols) * (layer.k + rows + cols - 2) - 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path,
                    default=Path(__file__).resolve().parents[1] / "tests" / "scalesim" / "sample")
    ap.add_argument("--topology", nargs="*", default=TOPOLOGIES,
                    help="topologies under the sample's topologies/ (default: all of them)")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args()
    config = read_config(args.shared / "configs" / "google.cfg")
    ideal = replace(config, bandwidth_mode="CALC")
    own = " ".join(f"-{k}={v}" for k, v in config_buffers(config).items())
    grand = {"ref": 0, "calc": 0, "wide": 0, "user": 0}
    for name in args.topology:
        topo = read_topology(args.shared / "topologies" / name,
                             "gemm" if name.startswith("GEMM") else "conv")
        t0 = time.perf_counter()
        ours = {"calc": run(ideal, topo), "wide": run(ideal, topo, overrides=own),
                "user": run(config, topo)}
        wall = time.perf_counter() - t0
        r, c = ours["calc"].target.array_rows, ours["calc"].target.array_cols
        head = ["LayerID", "Layer", "M x N x K", "SCALE-Sim", "ours (ideal)", "ratio",
                "ideal, config's SRAMs", "ratio", "10 B/cycle", "ratio",
                "total cycles (10 B/cycle)"]
        rows, within, wide = [], 0, 0
        for i, layer in enumerate(topo.layers):
            ref = scalesim_os(layer, r, c)
            got = {k: ours[k].layers[i].rows["ours_compute"]["Compute Cycles"]
                   for k in ("calc", "wide", "user")}
            total = ours["user"].layers[i].rows["compute"]["Total Cycles (incl. prefetch)"]
            within += abs(got["calc"] / ref - 1) <= 0.02
            wide += abs(got["wide"] / ref - 1) <= 0.02
            rows.append([str(i), layer.name, f"{layer.m} x {layer.n} x {layer.k}", str(ref),
                         *(v for k in ("calc", "wide", "user")
                           for v in (str(got[k]), f"{got[k] / ref:.3f}")), str(total)])
        tot = {"ref": sum(scalesim_os(x, r, c) for x in topo.layers),
               **{k: ours[k].total("Compute Cycles") for k in ("calc", "wide", "user")}}
        for k in grand:
            grand[k] += tot[k]
        rows.append(["", "total", "", str(tot["ref"]),
                     *(v for k in ("calc", "wide", "user")
                       for v in (str(tot[k]), f"{tot[k] / tot['ref']:.3f}")),
                     str(ours["user"].total("Total Cycles (incl. prefetch)"))])
        print(f"\ngoogle.cfg x {name}: {within} of {len(topo.layers)} layers within 2% with "
              f"ideal memory, {wide} within the config's SRAMs; the three runs {wall:.1f} s")
        _print(head, rows, args.markdown)
    print(f"\nall topologies: SCALE-Sim {grand['ref']}, ours ideal {grand['calc']} "
          f"({grand['calc'] / grand['ref']:.3f}x), ideal within the config's SRAMs {grand['wide']} "
          f"({grand['wide'] / grand['ref']:.3f}x), at 10 B/cycle {grand['user']} "
          f"({grand['user'] / grand['ref']:.3f}x)")


def _print(head: list, rows: list, markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    w = [max(len(x[j]) for x in [head] + rows) for j in range(len(head))]
    for r in [head] + rows:
        print("  ".join(v.rjust(w[j]) if j != 1 else v.ljust(w[j]) for j, v in enumerate(r)))


if __name__ == "__main__":
    main()
