"""`npusim compile MODEL -t TARGET -o DIR`: write the compiled artifact (program, assembly,
constants, tensor map, target, ISA version) that `npusim run DIR` loads again."""

from __future__ import annotations

import sys

from npusim.cli.main import fail
from npusim.cli.run_cmd import (DEFAULT_TARGET, _progress, check_model_arg, compile_model,
                                load_target)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compile", help="compile a model to an artifact directory",
        description="Compile MODEL (a zoo name or an .onnx file) for TARGET and write the "
                    "artifact: program.bin (assembled), program.s (readable assembly), "
                    "constants.bin and manifest.json (tensor map, target, ISA version, layers).")
    p.add_argument("model", metavar="MODEL", help="zoo model name or path to an .onnx file")
    p.add_argument("-t", "--target", default=DEFAULT_TARGET, metavar="TARGET",
                   help=f"target tag or string (default {DEFAULT_TARGET})")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="artifact directory")
    p.add_argument("--resolution", type=int, metavar="N",
                   help="input resolution of zoo image models")
    p.set_defaults(func=run)


def run(args) -> int:
    from compiler.errors import CompilerError
    from npusim.cli.compare import compile_other  # cpu/gpu targets: C or CUDA sources
    done = compile_other(args)
    if done is not None:
        return done
    target, err = load_target(args.target)
    if err:
        return fail(err)
    err = check_model_arg(args.model)
    if err:
        return fail(err)
    try:
        with _progress(True) as step:
            compiled = compile_model(args.model, target, args.resolution, progress=step)
    except CompilerError as e:
        return fail(str(e))
    art = compiled.artifact
    try:
        out = art.save(args.output)
    except OSError as e:
        return fail(f"cannot write '{args.output}': {e.strerror or e}")
    prog = art.program
    print(f"{out}: {args.model} for {art.target.split(' -')[0]}: {len(art.layers)} layers, "
          f"{prog.num_instructions:,} instructions on {prog.num_cores} core(s), "
          f"{len(art.constants):,} B constants, {art.meta['activation_bytes']:,} B activations",
          file=sys.stdout)
    return 0
