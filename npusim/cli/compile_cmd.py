"""`npusim compile MODEL -t TARGET -o DIR`: write the build to DIR. npu targets: the artifact
(program, assembly, constants, tensor map, target, ISA version) that `npusim run DIR` loads
again; cpu targets: the C sources and the built library; gpu targets: the CUDA sources (and the
PTX where nvcc exists)."""

from __future__ import annotations

from pathlib import Path

from npusim.cli.errors import UsageError
from npusim.cli.options import (DEFAULT_TARGET, add_calibration_argument,
                                add_sequence_arguments, sequence_kwargs,
                                add_input_shape_argument, calibration_arg, input_shapes_arg,
                                target_arg)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compile", help="compile a model to an artifact directory",
        description="Compile MODEL (a zoo name or an .onnx file) for TARGET and write the "
                    "artifact: program.bin (assembled), program.s (readable assembly), "
                    "constants.bin and manifest.json (tensor map, target, ISA version, layers); "
                    "for cpu targets model.c and libmodel.so, for gpu targets model.cu (and "
                    "its PTX where nvcc exists) instead of the program.")
    p.add_argument("model", metavar="MODEL", help="zoo model name or path to an .onnx file")
    p.add_argument("-t", "--target", default=DEFAULT_TARGET, metavar="TARGET",
                   help=f"target tag or string (default {DEFAULT_TARGET})")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="artifact directory")
    p.add_argument("--resolution", type=int, metavar="N",
                   help="input resolution of zoo image models")
    add_input_shape_argument(p)
    add_sequence_arguments(p)
    add_calibration_argument(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from npusim import flow
    from npusim.cli.progress import stages
    target = target_arg(args.target)
    input_shapes = input_shapes_arg(args.input_shape)
    with stages(True) as step:
        compiled = flow.compile(args.model, target, resolution=args.resolution, progress=step,
                                **({"input_shapes": input_shapes} if input_shapes else {}),
                                **sequence_kwargs(args), **_calibration(args))
    try:
        out = compiled.save(args.output)
    except OSError as e:
        raise UsageError(f"cannot write '{args.output}': {e.strerror or e}") from None
    print(f"{out}: {args.model} for {_describe(compiled, out)}")
    return 0


def _describe(compiled, out: Path) -> str:
    """What was written, per kind: the line after '<dir>: <model> for '."""
    if compiled.artifact is not None:
        art = compiled.artifact
        prog = art.program
        return (f"{art.target.split(' -')[0]}: {len(art.layers)} layers, "
                f"{prog.num_instructions:,} instructions on {prog.num_cores} core(s), "
                f"{len(art.constants):,} B constants, {art.meta['activation_bytes']:,} B "
                "activations")
    module, target = compiled.built, compiled.target
    prog = module.program
    lines = prog.source.count("\n")
    tail = (f"constants.bin ({prog.layout.const_bytes:,} B), manifest.json; "
            f"{prog.layout.arena_bytes:,} B activations")
    if compiled.kind == "cpu":
        cc = " ".join(Path(c).name if c.startswith("/") else c for c in module.command)
        return (f"{target.tag or target.kind}: {len(prog.kernels)} kernels, {lines:,} lines "
                f"of C; model.c, libmodel.so ({cc}), {tail}")
    ptx = sorted(p.name for p in Path(out).glob("*.ptx"))
    return (f"{target.tag or target.kind}: {len(prog.kernels)} kernels, {lines:,} lines of "
            f"CUDA; model.cu, {', '.join(ptx) or 'no PTX (nvcc not found)'}, {tail}")


def _calibration(args) -> dict:
    """compile()'s calib_inputs from --calibration (none: random inputs)."""
    feeds = calibration_arg(args.calibration)
    return {} if feeds is None else {"calib_inputs": feeds}
