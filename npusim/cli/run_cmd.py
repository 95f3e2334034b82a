"""`npusim run`: compile a model, simulate it, verify it, and print the per-layer table (all
through npusim.flow; this module is its argparse face)."""

from __future__ import annotations

import json
from pathlib import Path

from npusim.cli.compare import add_arguments as add_compare_arguments
from npusim.cli.errors import UsageError
from npusim.cli.options import (DEFAULT_MODEL, DEFAULT_TARGET, add_calibration_argument,
                                add_sequence_arguments, sequence_kwargs,
                                add_input_shape_argument, add_races_argument, calibration_arg,
                                check_writable, input_shapes_arg, non_negative, npu_target_arg,
                                race_warnings, save_trace)
from npusim.cli.outputs import add_output_arguments, check_outputs, keep_trace, save_outputs


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="compile, simulate and verify a model; print per-layer results",
        description="Compile MODEL (a zoo name or an .onnx file) for TARGET, run it on the "
                    "simulator, check it bit-exactly against the integer reference and against "
                    "the float model (onnxruntime, on the .onnx file itself when MODEL is "
                    "one), and print a per-layer table.")
    p.add_argument("model", nargs="?", default=DEFAULT_MODEL, metavar="MODEL",
                   help=f"zoo model name, path to an .onnx file, or an artifact directory "
                        f"written by `npusim compile` (default {DEFAULT_MODEL})")
    # default None, resolved in run(): an artifact runs on its own target unless -t is given,
    # even a -t equal to the models' default
    p.add_argument("-t", "--target", default=None, metavar="TARGET",
                   help=f"target tag or string, e.g. npu-tiny or 'npu -array=32x32' "
                        f"(default {DEFAULT_TARGET}; an artifact's own target for an artifact)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.add_argument("--trace", metavar="FILE", help="write a Chrome/Perfetto trace JSON")
    p.add_argument("--resolution", type=int, metavar="N",
                   help="input resolution of zoo image models (default: the model's, 224)")
    add_input_shape_argument(p)
    add_sequence_arguments(p)
    add_calibration_argument(p)
    p.add_argument("--seed", type=non_negative, default=0,
                   help="seed of the random test input (an integer >= 0)")
    p.add_argument("--timing-only", action="store_true",
                   help="skip data (no verification): cycles only, much faster")
    add_races_argument(p)
    add_compare_arguments(p)  # --compare: CPU/GPU baselines
    add_output_arguments(p)   # --save RUN.json, --csv DIR
    p.set_defaults(func=run)


def run(args) -> int:
    from npusim import flow
    from npusim.cli import compare
    from npusim.cli.progress import stages, ticking
    from npusim.cli.report import format_report
    check_writable(args.trace)  # before compiling anything, as the --compare list
    check_outputs(args)
    input_shapes = input_shapes_arg(args.input_shape)
    if args.compare:
        args.compare = compare.parse_compare(args.compare, args.model)
    if Path(args.model).is_dir():
        return run_artifact(args)
    target = npu_target_arg(DEFAULT_TARGET if args.target is None else args.target)
    with stages(not args.json) as step:
        compiled = flow.compile(args.model, target, resolution=args.resolution, progress=step,
                                **({"input_shapes": input_shapes} if input_shapes else {}),
                                **sequence_kwargs(args), **_calibration(args))
    with ticking(not args.json, "simulate"), race_warnings([]) as sims:
        result = flow.simulate(compiled, timing_only=args.timing_only, trace=keep_trace(args),
                               seed=args.seed, races=args.races)
        sims.append(result.sim)
    if not args.timing_only:
        with ticking(not args.json, "verify"):
            flow.verify(compiled, result)
    if args.compare:
        flow.compare(compiled, result, dict(args.compare))
    save_trace(result, args.trace)
    save_outputs(result, args)
    s = result.to_json()
    print(json.dumps(s, indent=1) if args.json else format_report(s))
    if args.compare:
        return compare.finish(s, args.json, s["verified"] is not False)
    return 0 if (s["verified"] is not False) else 1


def run_artifact(args) -> int:
    """Run a saved artifact on random inputs (no model, so no reference to verify against)."""
    from npusim import flow
    from npusim.cli.report import format_report
    if args.resolution is not None:
        raise UsageError(f"--resolution applies to zoo image models; '{args.model}' is a "
                         "compiled artifact (its shapes are fixed): recompile the model")
    if args.input_shape:
        raise UsageError(f"--input-shape applies to ONNX files; '{args.model}' is a compiled "
                         "artifact (its shapes are fixed): recompile the model")
    if args.seq is not None or args.decode:
        raise UsageError(f"--seq and --decode apply when compiling a zoo model; '{args.model}' "
                         "is a compiled artifact (its shapes are fixed): recompile the model")
    if args.calibration:
        raise UsageError(f"--calibration applies when compiling; '{args.model}' is a compiled "
                         "artifact (its scales are fixed): recompile the model with it")
    compiled = flow.compile(args.model)
    # -t defaults to the artifact's own target; another one may differ only in timing
    target = npu_target_arg(compiled.artifact.target if args.target is None else args.target)
    with race_warnings([]) as sims:
        result = flow.simulate(compiled, target=target, timing_only=args.timing_only,
                               trace=keep_trace(args), seed=args.seed, races=args.races)
        sims.append(result.sim)
    save_trace(result, args.trace)
    save_outputs(result, args)
    s = result.to_json()
    print(json.dumps(s, indent=1) if args.json else format_report(s))
    return 0


def _calibration(args) -> dict:
    """compile()'s calib_inputs from --calibration (none: random inputs)."""
    feeds = calibration_arg(args.calibration)
    return {} if feeds is None else {"calib_inputs": feeds}
