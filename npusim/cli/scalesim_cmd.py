"""`npusim scalesim -c CONFIG.cfg -t TOPOLOGY.csv [-i conv|gemm] [-p OUTDIR] [--json]`: a
SCALE-Sim run (its config, its topology, its reports) on our compiled programs and model."""

from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "scalesim", help="run a SCALE-Sim config + topology on the NPU model, write its reports",
        description="Read a SCALE-Sim 3.0 config and topology CSV, compile every layer for the "
                    "npu Target the config describes, simulate it, and write COMPUTE_REPORT.csv "
                    "and BANDWIDTH_REPORT.csv into OUTDIR/<run_name>/ with SCALE-Sim's columns "
                    "first and ours after (docs/scalesim.md).",
        epilog="example: npusim scalesim -c scale.cfg -t topologies/conv_nets/Resnet18.csv "
               "-p out/")
    p.add_argument("-c", dest="config", required=True, metavar="CONFIG.cfg",
                   help="SCALE-Sim config file")
    p.add_argument("-t", dest="topology", required=True, metavar="TOPOLOGY.csv",
                   help="SCALE-Sim topology CSV")
    p.add_argument("-i", dest="input_type", choices=("conv", "gemm"), default="conv",
                   help="topology format: conv (layer, IFMAP H/W, filter H/W, channels, "
                        "filters, strides) or gemm (layer, M, N, K); default conv")
    p.add_argument("-p", dest="top_path", default=".", metavar="OUTDIR",
                   help="folder the <run_name>/ report folder goes in (default: .)")
    p.add_argument("--lowering", choices=("conv", "gemm"), default="conv",
                   help="how a conv layer runs: conv (our conv instruction, im2col in the "
                        "array's address generator; default) or gemm (SCALE-Sim's operand "
                        "matrices: the im2col'd M x K ifmap times the K x N filters)")
    p.add_argument("--target-attrs", default="", metavar="'-ATTR=VALUE ...'",
                   help="npu attributes applied over the config's, e.g. '-dma-engines=4'")
    p.add_argument("--json", action="store_true",
                   help="print the reports and totals as JSON instead of a table")
    p.set_defaults(func=run)


def _table(result) -> str:
    head = ("LayerID", "Layer", "Total Cycles (incl. prefetch)", "Total Cycles",
            "Stall Cycles", "Compute Cycles", "Overall Util %")
    rows = [head]
    for r in result.layers:
        c = {**r.rows["compute"], **r.rows["ours_compute"]}
        rows.append((str(r.index), r.layer.name, *(str(c[h]) for h in head[2:6]),
                     f"{c[head[6]]:.2f}"))
    rows.append(("", "total", *(str(result.total(h)) for h in head[2:6]), ""))
    w = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(v.ljust(w[i]) if i < 2 else v.rjust(w[i])
                               for i, v in enumerate(row)) for row in rows)


def run(args) -> int:
    from npusim import scalesim
    config = scalesim.read_config(args.config)
    topology = scalesim.read_topology(args.topology, args.input_type)
    for note in config.notes + topology.notes:
        print(f"npusim: note: {note}", file=sys.stderr)
    result = scalesim.run(config, topology, overrides=args.target_attrs,
                          lowering=args.lowering)
    for note in result.run_notes:
        print(f"npusim: note: {note}", file=sys.stderr)
    try:
        folder = scalesim.write_reports(result, args.top_path)
    except OSError as e:
        from npusim.cli.errors import fail
        return fail(f"cannot write the reports under '{args.top_path}': {e.strerror}")
    if args.json:
        print(json.dumps({**scalesim.report_json(result), "reports": str(folder)}, indent=2))
        return 0
    print(f"target   {result.target}")
    print(f"run      {config.run_name}: {len(result.layers)} layers of {topology.name} "
          f"({topology.fmt}, convs as {result.lowering}), dataflow {config.dataflow}, "
          f"interface bandwidth {config.bandwidth_mode}")
    print(_table(result))
    print(f"reports  {folder}/COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv "
          f"({result.wall_s:.2f} s)")
    return 0
