"""`npusim run`: compile a model, simulate it, verify it, and print the per-layer table.

Also the end-to-end driver other tools reuse: `compile_model`, `execute` (simulate an
artifact on given inputs) and `verify`; the table itself is npusim.cli.report."""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from npusim.cli.main import fail
from npusim.cli.report import format_report, summary

DEFAULT_MODEL, DEFAULT_TARGET = "resnet18", "npu-edge"
FP16_SNR_DB = 30.0  # fp16 runs are "verified" when this close to the float model


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="compile, simulate and verify a model; print per-layer results",
        description="Compile MODEL (a zoo name or an .onnx file) for TARGET, run it on the "
                    "simulator, check it bit-exactly against the integer reference and against "
                    "the float model (onnxruntime), and print a per-layer table.")
    p.add_argument("model", nargs="?", default=DEFAULT_MODEL, metavar="MODEL",
                   help=f"zoo model name, path to an .onnx file, or an artifact directory "
                        f"written by `npusim compile` (default {DEFAULT_MODEL})")
    p.add_argument("-t", "--target", default=DEFAULT_TARGET, metavar="TARGET",
                   help=f"target tag or string, e.g. npu-tiny or 'npu -array=32x32' "
                        f"(default {DEFAULT_TARGET})")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.add_argument("--trace", metavar="FILE", help="write a Chrome/Perfetto trace JSON")
    p.add_argument("--resolution", type=int, metavar="N",
                   help="input resolution of zoo image models (default: the model's, 224)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random test input")
    p.add_argument("--timing-only", action="store_true",
                   help="skip data (no verification): cycles only, much faster")
    from npusim.cli.compare import add_arguments  # --compare: CPU/GPU baselines
    add_arguments(p)
    p.set_defaults(func=run)


# ------------------------------------------------------------------ the driver

@contextmanager
def _progress(enabled: bool):
    """A tqdm bar on stderr (only on a terminal) that follows the compiler's stages."""
    from tqdm import tqdm
    bar = tqdm(total=1, file=sys.stderr, disable=None if enabled else True, leave=False,
               unit="layer", desc="compile")

    def step(stage: str, done: int, total: int) -> None:
        if bar.disable:
            return
        if bar.total != total:
            bar.reset(total=total)
        bar.set_description(stage)
        bar.n = done
        bar.refresh()
    try:
        yield step
    finally:
        bar.close()


@contextmanager
def _ticking(enabled: bool, desc: str):
    """An elapsed-time bar on stderr while a long call (the simulation) runs in this thread."""
    import threading

    from tqdm import tqdm
    bar = tqdm(total=None, file=sys.stderr, disable=None if enabled else True, leave=False,
               desc=desc, bar_format="{desc}: {elapsed}")
    stop = threading.Event()

    def tick():
        while not stop.wait(0.5):
            bar.refresh()
    ticker = threading.Thread(target=tick, daemon=True)
    if not bar.disable:
        ticker.start()
    try:
        yield
    finally:
        stop.set()
        bar.close()


def compile_model(model: str, target, resolution: int | None = None, progress=None, **opts):
    """Compile a zoo name / .onnx path for `target`; -> compiler.backends.npu.CompiledModel."""
    from compiler.backends import build
    kwargs = {}
    if resolution is not None:
        kwargs["resolution"] = resolution
    return build(model, target, progress=progress, **kwargs, **opts)


def random_inputs(compiled, seed: int = 0) -> dict:
    """Standard-normal float inputs of the float model's input shapes."""
    rng = np.random.default_rng(seed)
    g = compiled.float_graph
    return {v: rng.standard_normal(g.type_of(v).shape).astype(np.float32) for v in g.inputs}


def device_inputs(compiled, feeds: dict) -> dict:
    """Host step: float feeds -> the NPU tensors (int8 quantized, or fp16)."""
    if compiled.quantized:
        return compiled.module.quantize_inputs(feeds)
    return {e.name: np.asarray(feeds[e.model_name], np.float16) for e in compiled.artifact.inputs}


def execute(artifact, inputs: dict | None, target=None, timing_only: bool = False):
    """Simulate an artifact; -> (SimResult, {output tensor: array} or {})."""
    from npusim.memory import Dram
    from npusim.simulate import simulate
    from isa.target import Target
    target = Target.create(target or artifact.target)
    dram = Dram(target.derived.dram_bytes)
    if not timing_only:
        artifact.dram_image(dram)
        for e in artifact.inputs:
            dram.write(e.dram, np.asarray(inputs[e.name]).astype(e.dtype).reshape(e.shape))
    result = simulate(artifact.program, target, dram=dram, timing_only=timing_only)
    outputs = {} if timing_only else {e.name: dram.read(e.dram, e.shape, e.dtype)
                                      for e in artifact.outputs}
    return result, outputs


def verify(compiled, feeds: dict, dev_in: dict, outputs: dict) -> dict:
    """Bit-exact check against the integer reference (int8) and top-1 / SNR against the float
    model run by onnxruntime (our float reference if onnxruntime cannot run it)."""
    from compiler.metrics import snr_db, top1_agreement
    from compiler.reference import run_float, run_onnxruntime
    art = compiled.artifact
    try:
        ref = run_onnxruntime(compiled.float_graph, feeds)
        ref_name = "onnxruntime"
    except Exception:  # noqa: BLE001 - an op onnxruntime lacks: fall back, and say so
        ref = run_float(compiled.float_graph, feeds)
        ref_name = "numpy float reference"
    out = {"bit_exact": None, "reference": ref_name}
    if compiled.quantized:
        want = compiled.module.run_int(dev_in)
        out["bit_exact"] = all(np.array_equal(outputs[e.name], want[e.name]) for e in art.outputs)
        got = compiled.module.dequantize_outputs(outputs)
    else:
        got = {}
        for e in art.outputs:
            y = outputs[e.name].astype(np.float32)
            for kind, arg in e.post:
                if kind == "softmax":
                    from compiler.ops.elementwise import softmax
                    y = softmax(y, arg)
            got[e.model_name] = y
    snr = min(snr_db(ref[k], got[k]) for k in ref)
    top1 = min(top1_agreement(ref[k], got[k]) for k in ref)
    out.update(snr_db=snr, top1_agree=top1,
               verified=bool(out["bit_exact"]) if compiled.quantized else snr >= FP16_SNR_DB)
    return out


def check_model_arg(model: str) -> str | None:
    """An error message if MODEL is neither a zoo name nor an existing .onnx file."""
    from compiler import zoo
    from compiler.errors import did_you_mean
    if model in zoo.list() or Path(model).is_file():
        return None
    if model.endswith(".onnx"):
        return f"model file '{model}' does not exist"
    return f"unknown model '{model}'; {did_you_mean(model, zoo.list())} (or an .onnx path)"


def load_target(text: str):
    from isa.target import Target, TargetError
    try:
        t = Target.create(text)
    except TargetError as e:
        return None, f"-t {text!r}: {e}"
    if t.kind != "npu":
        return None, (f"-t {text!r} is a {t.kind} target; `npusim run` simulates npu targets "
                      "(e.g. npu-edge, npu-tiny, npu-server)")
    return t, None


def save_trace(result, path: str | None) -> str | None:
    """Write the Chrome trace if asked; the error line if the file cannot be written."""
    if not path:
        return None
    try:
        result.save_chrome_trace(path)
    except OSError as e:
        return f"cannot write '{path}': {e.strerror or e}"
    return None


def run_artifact(args) -> int:
    """Run a saved artifact on random inputs (no model, so no reference to verify against)."""
    from compiler.artifact import Artifact, ArtifactError
    from npusim.faults import SimulationFault
    try:
        art = Artifact.load(args.model)
    except ArtifactError as e:
        return fail(str(e))
    target, err = load_target(art.target if args.target == DEFAULT_TARGET else args.target)
    if err:
        return fail(err)
    from npusim.runtime import check_compatible
    from npusim.runtime.errors import ProgramError
    try:
        check_compatible(art.target, target, what=f"artifact {args.model}")
    except ProgramError as e:
        return fail(str(e))
    rng = np.random.default_rng(args.seed)
    inputs = {e.name: (rng.integers(-128, 128, e.shape).astype(np.int8) if e.dtype == "int8"
                       else rng.standard_normal(e.shape).astype(e.dtype)) for e in art.inputs}
    try:
        result, _ = execute(art, inputs, target, timing_only=args.timing_only)
    except SimulationFault as e:
        print(f"npusim: simulation fault: {e}", file=sys.stderr)
        return 1

    class _Loaded:  # summary() reads .artifact only
        artifact = art
    s = summary(_Loaded, result, None, f"{art.model} ({args.model})", 0.0)
    err = save_trace(result, args.trace)
    if err:
        return fail(err)
    print(json.dumps(s, indent=1) if args.json else format_report(s))
    return 0


def run(args) -> int:
    from compiler.errors import CompilerError
    from npusim.faults import SimulationFault
    if args.compare:  # CPU/GPU baselines (npusim/cli/compare.py): check the list first
        from npusim.cli.compare import parse_compare
        args.compare, err = parse_compare(args.compare, args.model)
        if err:
            return fail(err)
    if Path(args.model).is_dir():
        return run_artifact(args)
    target, err = load_target(args.target)
    if err:
        return fail(err)
    err = check_model_arg(args.model)
    if err:
        return fail(err)
    t0 = time.perf_counter()
    try:
        with _progress(not args.json) as step:
            compiled = compile_model(args.model, target, args.resolution, progress=step)
    except CompilerError as e:
        return fail(str(e))
    compile_s = time.perf_counter() - t0
    art = compiled.artifact
    feeds = random_inputs(compiled, args.seed)
    dev_in = device_inputs(compiled, feeds)
    try:
        with _ticking(not args.json, "simulate"):
            result, outputs = execute(art, dev_in, target, timing_only=args.timing_only)
    except SimulationFault as e:
        print(f"npusim: simulation fault: {e}", file=sys.stderr)
        return 1
    with _ticking(not args.json, "verify"):
        checks = None if args.timing_only else verify(compiled, feeds, dev_in, outputs)
    s = summary(compiled, result, checks, args.model, compile_s)
    if args.compare:
        from npusim.cli.compare import attach
        attach(args.compare, compiled, feeds, s)
    err = save_trace(result, args.trace)
    if err:
        return fail(err)
    print(json.dumps(s, indent=1) if args.json else format_report(s))
    if args.compare:
        from npusim.cli.compare import finish
        return finish(s, args.json, s["verified"] is not False)
    return 0 if (s["verified"] is not False) else 1
