"""`npusim asm` and `npusim disasm`: assembly text <-> program containers, with one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path

from isa.asm import AsmError, ContainerError, Program, assemble_file, disassemble
from isa.errors import IsaError
from isa.files import write_atomic
from npusim.cli.errors import fail


def register(subparsers) -> None:
    p = subparsers.add_parser("asm", help="assemble NPU assembly (.s) into a program (.bin)",
                              description="Assemble NPU assembly into a program container.")
    p.add_argument("source", metavar="PROG.s", help="assembly source file")
    p.add_argument("-o", "--output", metavar="PROG.bin",
                   help="output container (default: the source name with .bin)")
    p.add_argument("-t", "--target", metavar="TARGET",
                   help="target string or tag, e.g. npu-edge or 'npu-edge -num-cores=2'; "
                        "must agree with the file's .target line")
    p.set_defaults(func=run_asm)

    d = subparsers.add_parser("disasm", help="print a program (.bin) as canonical assembly",
                              description="Disassemble a program container to assembly that "
                                          "re-assembles to the identical bytes.")
    d.add_argument("program", metavar="PROG.bin", help="program container")
    d.add_argument("-o", "--output", metavar="OUT.s", help="write to a file instead of stdout")
    d.add_argument("--no-index", action="store_true",
                   help="leave out the '; [index]' comment after each instruction")
    d.set_defaults(func=run_disasm)


def run_asm(args) -> int:
    from isa.target import TargetError

    source = Path(args.source)
    output = Path(args.output) if args.output else source.with_suffix(".bin")
    try:
        program = assemble_file(source, target=args.target)
    except AsmError as e:
        print(str(e), file=sys.stderr)  # already `file:line:col: error: ...`, one per line
        return 2
    except TargetError as e:
        return fail(f"-t {args.target!r}: {e}")
    except OSError as e:
        return fail(f"cannot read '{source}': {e.strerror or e}")
    except UnicodeDecodeError as e:
        return fail(f"cannot read '{source}': not UTF-8 text (byte {e.start}); "
                     "is it a program container? use `npusim disasm`")
    try:
        size = program.save(output)
    except OSError as e:
        return fail(f"cannot write '{output}': {e.strerror or e}")
    n, cores = program.num_instructions, program.num_cores
    print(f"{output}: {n} instruction{'s' if n != 1 else ''}, {cores} core"
          f"{'s' if cores != 1 else ''}, target {program.target or '(none)'}, {size} bytes")
    return 0


def run_disasm(args) -> int:
    path = Path(args.program)
    try:
        text = disassemble(Program.load(path), indices=not args.no_index)
    except (ContainerError, IsaError) as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"cannot read '{path}': {e.strerror or e}")
    if args.output:
        try:
            write_atomic(args.output, text)
        except OSError as e:
            return fail(f"cannot write '{args.output}': {e.strerror or e}")
    else:
        sys.stdout.write(text)
    return 0

