"""`npusim sim PROG`: run a program (.bin or .s) on a simulated device; report cycles, counters."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from npusim.cli.errors import UsageError
from npusim.cli.options import add_races_argument, int_at_least, non_negative, race_warnings
from npusim.cli.outputs import add_output_arguments, check_outputs, keep_trace, save_sim_csv


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sim", help="simulate a program (.bin or .s) and report cycles, utilization, energy",
        description="Run an assembled program (or assemble a .s on the fly) on the cycle-level "
                    "model through the Device API; print a summary and per-unit counters.",
        epilog="examples: npusim sim examples/gemm_tile.s --random-inputs 0 --output C=c.npy; "
               "npusim sim prog.bin -t 'npu-edge -dram-bw=32' --json")
    p.add_argument("program", metavar="PROG", help="program container (.bin) or assembly (.s)")
    p.add_argument("-t", "--target", metavar="TARGET",
                   help="target (default: the program's); may change only timing attributes, "
                        "e.g. 'npu-edge -dram-bw=32'")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="data for a declared .tensor (repeatable); others start as zeros")
    p.add_argument("--output", action="append", default=[], metavar="NAME=FILE.npy",
                   help="save a declared .tensor after the run (repeatable)")
    p.add_argument("--random-inputs", type=non_negative, metavar="SEED",
                   help="fill tensors without --input with random values instead of zeros "
                        "(int8: full range; wider integers: 0..63; floats: normal)")
    p.add_argument("--timing-only", action="store_true",
                   help="skip all data work (same cycles, faster; no outputs)")
    p.add_argument("--trace", metavar="TRACE.json",
                   help="write a Chrome/Perfetto trace (open in ui.perfetto.dev)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument("--max-cycles", type=int_at_least(1), metavar="N",
                   help="stop with a fault after N cycles")
    add_races_argument(p)
    add_output_arguments(p, save=False)  # --csv DIR
    p.set_defaults(func=run)


def run(args) -> int:
    # a fault is the Device API's RunFault and an assembly error a DeviceError caused by it:
    # npusim.cli.errors.report prints both in their own formats
    from npusim.runtime import check_compatible
    from npusim.runtime.loader import read_program

    check_outputs(args)
    art = _artifact_of(args.program)
    program = art.program if art is not None else read_program(args.program)
    target = _target(args.target or program.target, args.program, bool(args.target))
    if program.target is None and args.target and args.program.endswith(".s"):
        program = read_program(args.program, target=args.target)  # check operands against -t
    if program.target:
        check_compatible(program.target, target, what=args.program)
    inputs = dict(_pair(s, "--input") for s in args.input)
    outputs = dict(_pair(s, "--output") for s in args.output)
    if outputs and args.timing_only:
        raise UsageError("--output needs data, but --timing-only computes none; drop one")
    run_one = _run_artifact if art is not None else _run_on_device
    result = run_one(args, art or program, target, inputs, outputs)
    save_sim_csv(result, args.csv, art)
    if args.trace:
        try:
            result.save_chrome_trace(args.trace)
        except OSError as e:
            raise UsageError(f"cannot write trace '{args.trace}': {e.strerror or e}") from None
    if args.json:
        print(json.dumps({"program": args.program, **result.to_json(),
                          "outputs": dict(outputs)}, indent=1))
    else:
        print(report(result, args.program))
    return 0


def _run_on_device(args, program, target, inputs: dict, outputs: dict):
    """An assembled program through the Device API: its declared tensors bound to the
    --input files (the others zeros, or --random-inputs), the --output tensors read back."""
    from npusim.runtime import Device
    with Device(target) as dev:
        prog = dev.load_program(program)
        for name in [*inputs, *outputs]:
            if name not in prog.tensors:
                declared = ", ".join(prog.tensors) or "none (the program has no .tensor lines)"
                raise UsageError(f"the program declares no tensor '{name}'; declared: {declared}")
        rng = None if args.random_inputs is None else np.random.default_rng(args.random_inputs)
        bindings = {}
        for name, slot in prog.tensors.items():
            data = _load_input(inputs[name], slot) if name in inputs else _fill(slot, rng)
            bindings[name] = dev.upload(data, name=name) if not args.timing_only \
                else dev.alloc(slot.shape, slot.dtype, name=name)
        with race_warnings([]) as sims:
            result = dev.sync(dev.run(prog, bindings, timing_only=args.timing_only,
                                      max_cycles=args.max_cycles, trace=keep_trace(args),
                                      races=args.races))
            sims.append(result)
        for name, path in outputs.items():
            _save(path, dev.copy_from_device(bindings[name]), name)
    return result


def _artifact_of(path: str):
    """The compiled artifact a program.bin belongs to (its manifest.json beside it), or None:
    that program reads the artifact's constants, so it runs as the artifact does."""
    from compiler.artifact import FILES, Artifact
    p = Path(path)
    if p.name != FILES["program"] or not (p.parent / "manifest.json").is_file():
        return None
    return Artifact.load(p.parent)


def _run_artifact(args, art, target, inputs: dict, outputs: dict):
    """A compiled artifact's program: its constants loaded at const_base, its inputs and
    outputs named as the manifest names them (or as the program's .tensor lines do)."""
    from types import SimpleNamespace

    from npusim import flow
    entries = {e.name: e for e in [*art.inputs, *art.outputs]}
    alias = art.program_names()

    def entry(name: str, flag: str):
        if alias.get(name, name) not in entries:
            known = ", ".join(n if p == n else f"{n} (or {p})" for p, n in alias.items())
            raise UsageError(f"{flag} {name}: {args.program} belongs to the compiled model "
                             f"'{art.model}', whose tensors are {known}")
        return alias.get(name, name)

    inputs = {entry(n, "--input"): path for n, path in inputs.items()}
    outputs = {entry(n, "--output"): path for n, path in outputs.items()}
    rng = None if args.random_inputs is None else np.random.default_rng(args.random_inputs)
    dev_in = {}
    for e in art.inputs:
        slot = SimpleNamespace(name=e.name, shape=tuple(e.shape), dtype=np.dtype(e.dtype))
        dev_in[e.name] = _load_input(inputs[e.name], slot) if e.name in inputs else \
            _fill(slot, rng)
    with race_warnings([]) as sims:
        result, got = flow.execute(art, dev_in, target, timing_only=args.timing_only,
                                   races=args.races, max_cycles=args.max_cycles,
                                   trace=keep_trace(args))
        sims.append(result)
    for name, path in outputs.items():
        _save(path, got[name], name)
    return result


def _target(text, program: str, from_option: bool):
    """The Target of -t (when given) or of the program, named so in errors."""
    from isa.target import Target, TargetError
    if not text:
        raise UsageError(f"{program} names no target (no .target line); pass -t, "
                         "e.g. -t npu-edge")
    try:
        return Target.create(text)
    except TargetError as e:
        where = f"-t {text!r}" if from_option else f"{program}: its target {text!r} is invalid"
        raise UsageError(f"{where}: {e}") from None


def _pair(text: str, flag: str) -> tuple:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise UsageError(f"{flag} '{text}' is not NAME=FILE.npy, e.g. {flag} A=a.npy")
    return name, path


def _load_input(path: str, slot) -> np.ndarray:
    where = f"--input {slot.name}={path}: cannot read a .npy array"
    try:
        arr = np.load(path, allow_pickle=False)
    except OSError as e:
        raise UsageError(f"{where}: {e.strerror or e}") from None
    except ValueError:  # numpy blames pickling for any file that is not .npy: say what it is
        raise UsageError(f"{where}: not a .npy file of numbers; write one with "
                         "numpy.save") from None
    if not isinstance(arr, np.ndarray):  # an .npz archive loads as a mapping of arrays
        raise UsageError(f"{where}: it is an .npz archive; save the one array with numpy.save")
    want = f"{slot.dtype.name}[{','.join(map(str, slot.shape))}]"
    got = f"{arr.dtype.name}[{','.join(map(str, arr.shape))}]"
    if arr.shape != slot.shape:
        raise UsageError(f"--input {slot.name}={path}: array is {got}, tensor '{slot.name}' "
                         f"is {want}")
    cast = arr.astype(slot.dtype)
    # np.save of Python ints gives int64: accept it when every value fits the tensor's type.
    if arr.dtype != slot.dtype and not np.array_equal(cast, arr):
        raise UsageError(f"--input {slot.name}={path}: array is {got} with values that do not "
                         f"fit tensor '{slot.name}' ({want}); convert with .astype")
    return cast


def _fill(slot, rng) -> np.ndarray:
    if rng is None:
        return np.zeros(slot.shape, slot.dtype)
    if slot.dtype.kind == "f":
        return rng.standard_normal(slot.shape).astype(slot.dtype)
    if slot.dtype.itemsize == 1:
        info = np.iinfo(slot.dtype)
        return rng.integers(info.min, info.max, slot.shape, endpoint=True, dtype=slot.dtype)
    # Wider integer tensors are biases and (mult, shift) requant tables: 0..63 keeps every
    # shift legal, where full-range int32 noise would fault the first vrequant.
    return rng.integers(0, 64, slot.shape, dtype=slot.dtype)


def _save(path: str, array: np.ndarray, name: str) -> None:
    import io

    from isa.files import write_atomic
    buf = io.BytesIO()
    np.save(buf, array)  # np.save(path) would append .npy to other names
    try:
        write_atomic(path, buf.getvalue())
    except OSError as e:
        raise UsageError(f"--output {name}={path}: cannot write: {e.strerror or e}") from None


def report(result, program: str) -> str:
    """The summary lines and the per-unit table of the text output."""
    import pandas as pd
    from isa.checks import target_name
    t = result.target
    us = result.cycles / t.freq_mhz
    moved = sum(result.dram_bytes.values())
    bw_gbs = result.dram_bw_achieved * t.freq_mhz / 1e3
    e = result.energy_pj
    parts = ", ".join(f"{k} {v:.1f}" for k, v in e.items() if k != "total")
    note = "  (timing only: no data computed)" if result.timing_only else ""
    lines = [
        f"{program} on {target_name(t)}{note}",
        f"  cycles        {result.cycles}  ({us:.3f} us at {t.freq_mhz} MHz)",
        f"  instructions  {result.instructions}",
        f"  utilization   {100 * result.utilization:.1f}% of {t.derived.peak_macs_per_cycle} "
        f"MACs/cycle ({result.macs} MACs)",
        f"  DRAM          {result.dram_bytes['read']} B read, {result.dram_bytes['write']} B "
        f"written; {result.dram_bw_achieved:.2f} of {t.dram_bw} B/cycle ({bw_gbs:.2f} GB/s)",
        f"  energy        {e['total']:.1f} pJ ({parts})",
        f"  sim wall      {result.sim_wall_s * 1e3:.1f} ms",
        "",
    ]
    table = pd.DataFrame.from_dict(result.units, orient="index")
    table.columns = [c.replace("stall_", "stall:") for c in table.columns]
    table["busy%"] = (100 * table["busy"] / max(result.cycles, 1)).round(1)
    table = table.rename_axis("unit").reset_index()
    table["unit"] = table["unit"].str.ljust(table["unit"].str.len().max())  # left-aligned names
    return "\n".join(lines) + table.to_string(index=False)
