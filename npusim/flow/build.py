"""compile(): a zoo name, .onnx path, Graph (or QuantizedModule) for any Target, or an artifact
directory loaded back; checks the model argument first so a typo is one clear error."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable

from npusim.flow.compiled import Compiled
from npusim.flow.errors import FlowError

DEFAULT_TARGET = "npu-edge"
Progress = Callable[[str, int, int], None]  # (stage, done, total), as the backends call it


def compile(model: Any, target: Any = None, *, resolution: int | None = None,  # noqa: A001
            progress: Progress | None = None, **options: Any) -> Compiled:
    """Compile `model` for `target` (a Target, tag, target string or dict; default npu-edge).

    `model`: a zoo name (compiler.zoo.list()), an .onnx path, a compiler Graph, a
    QuantizedModule, or a directory written by `Compiled.save` / `npusim compile` (loaded and
    checked; `target`, when given, must be one the artifact can run on). `resolution` sets the
    input resolution of zoo image models; `input_shapes={input: shape}` the shapes of an ONNX
    model's inputs with symbolic dimensions. Other options go to the backend (npu: num_calib,
    seed, calib_inputs, sync, rewrites, tile_for, evaluate; cpu/gpu: dtype, cc/nvcc, out_dir,
    ...). On npu Targets the backend keeps the fastest of its own program and those its
    neighbouring Targets' tiles make, each timed by a timing-only run on `target`
    (compiler.backends.npu.neighbours); evaluate=None keeps the cost model's program."""
    if _is_artifact_dir(model):
        if resolution is not None or options:
            given = ["resolution"] * (resolution is not None) + sorted(options)
            raise FlowError(f"'{model}' is a compiled artifact; it takes no compile options "
                            f"({', '.join(given)}); compile the model itself to change them")
        return _load(model, target)
    from compiler.backends import build
    from isa.target import Target
    target = Target.create(DEFAULT_TARGET if target is None else target)
    _check_model(model)
    if options.get("input_shapes") is not None:
        _check_input_shapes(model)
    if resolution is not None and _is_onnx_file(model):
        options["input_shapes"] = _onnx_resolution(model, resolution,
                                                   options.get("input_shapes"))
    elif resolution is not None:
        _check_resolution(model, resolution)
        options["resolution"] = resolution
    if target.kind == "npu" and "evaluate" not in options:
        options["evaluate"] = _timed_on(target)
    t0 = time.perf_counter()
    built = build(model, target, progress=progress, **options)
    seconds = time.perf_counter() - t0
    return Compiled(name=_name(model), target=target, built=built,
                    artifact=getattr(built, "artifact", None) if target.kind == "npu" else None,
                    compile_s=seconds)


def _timed_on(target):
    """artifact -> its cycles on `target`, timing-only (the compiler may not simulate). Its
    `fingerprint()` lets the compile cache remember the choice it makes among neighbour
    programs (compiler.backends.npu.neighbours.verdict_key)."""
    def cycles(artifact) -> int:
        from npusim.flow.sim import execute
        return execute(artifact, None, target, timing_only=True)[0].cycles
    cycles.fingerprint = simulator_fingerprint
    return cycles


def simulator_fingerprint() -> str:
    """What a timing run's cycles depend on besides the program and the Target (the ISA
    spec and rules' code are in the compile cache's own code fingerprint): npusim's sources,
    and which function each cycle rule is now (a test's isa.timing.override is another
    simulator)."""
    import hashlib

    from compiler.cache import sources_digest
    from isa import timing
    rules = sorted((name, getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)))
                   for name, fn in timing.RULES.items())
    return hashlib.sha256(repr((sources_digest("npusim"), rules)).encode()).hexdigest()


def _is_artifact_dir(model) -> bool:
    return isinstance(model, (str, os.PathLike)) and Path(model).is_dir()


def _name(model) -> str:
    if isinstance(model, (str, os.PathLike)):
        return str(model)
    return getattr(model, "name", None) or type(model).__name__


def zoo_models() -> dict:
    """The zoo's models, {name: {"resolution": takes one, "source": the file defining it}}:
    what a DSE space checks its workloads against and hashes them by."""
    import inspect
    from compiler import zoo
    return {n: {"resolution": "resolution" in _parameters(zoo.MODELS[n]),
                "source": inspect.getsourcefile(zoo.MODELS[n])} for n in zoo.list()}


def _check_model(model) -> None:
    """A string model must be a zoo name or an existing file (the backends would say less)."""
    if not isinstance(model, (str, os.PathLike)):
        return
    from compiler import zoo
    from compiler.errors import ZooError, did_you_mean
    text = str(model)
    if text in zoo.list() or Path(text).is_file():
        return
    if text.endswith(".onnx"):
        raise FlowError(f"model file '{text}' does not exist")
    raise ZooError(f"unknown model '{text}'; {did_you_mean(text, zoo.list())} (or an .onnx path)")


def _check_resolution(model, resolution: int) -> None:
    """Resolution is a parameter of zoo image models; an ONNX file or Graph has fixed shapes."""
    from compiler import zoo
    if isinstance(model, (str, os.PathLike)) and str(model) in zoo.list():
        return  # the zoo itself checks the model takes it, and its minimum
    takes = ", ".join(n for n in zoo.list() if "resolution" in _parameters(zoo.MODELS[n]))
    what = (f"'{model}', an ONNX file" if isinstance(model, (str, os.PathLike))
            else f"a {type(model).__name__}")
    raise FlowError(f"resolution {resolution} applies to zoo image models ({takes}), not to "
                    f"{what}: its input shapes are its own; drop the resolution, or export "
                    "the model at the resolution you want")


def _is_onnx_file(model) -> bool:
    from compiler import zoo
    return isinstance(model, (str, os.PathLike)) and str(model) not in zoo.list() and \
        Path(model).is_file()


def _onnx_resolution(path, resolution: int, given: dict | None) -> dict:
    """input_shapes that set the symbolic H and W of an ONNX file's 4-D inputs to
    `resolution` (a symbolic batch becomes 1); an error when no input has symbolic H and W,
    or when --input-shape already gives that input."""
    import onnx
    from compiler import zoo
    shapes = dict(given or {})
    try:
        proto = onnx.load(str(path), load_external_data=False)
    except Exception:  # noqa: BLE001  (the importer names an unreadable file exactly)
        return shapes
    inits = {t.name for t in proto.graph.initializer}
    fixed = []
    for vi in proto.graph.input:
        if vi.name in inits:
            continue
        dims = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None
                for d in vi.type.tensor_type.shape.dim]
        if len(dims) != 4 or dims[2] is not None or dims[3] is not None:
            fixed.append(f"'{vi.name}' {'x'.join(str(d or '?') for d in dims)}")
            continue
        if vi.name in shapes:
            raise FlowError(f"input '{vi.name}' of '{path}' gets both --input-shape "
                            f"{'x'.join(map(str, shapes[vi.name]))} and --resolution "
                            f"{resolution}; give one")
        if dims[1] is None:
            raise FlowError(f"input '{vi.name}' of '{path}' has symbolic channels too; "
                            "--resolution sets H and W only: give --input-shape "
                            f"{vi.name}=1xCx{resolution}x{resolution}")
        shapes[vi.name] = (dims[0] or 1, dims[1], resolution, resolution)
    if not shapes or len(shapes) == len(given or {}):
        takes = ", ".join(n for n in zoo.list() if "resolution" in _parameters(zoo.MODELS[n]))
        raise FlowError(f"resolution {resolution} applies to zoo image models ({takes}), not to "
                        f"'{path}', an ONNX file whose inputs have no symbolic height and "
                        f"width ({', '.join(fixed)}): drop the resolution, or export the model "
                        "at the resolution you want (or with dynamic H and W)")
    return shapes


def _check_input_shapes(model) -> None:
    """input_shapes fixes an ONNX model's symbolic input dimensions; a zoo model or Graph has
    none (a zoo image model takes a resolution)."""
    from compiler import zoo
    if type(model).__name__ == "ModelProto" or (
            isinstance(model, (str, os.PathLike)) and str(model) not in zoo.list()):
        return
    what = (f"'{model}', a zoo model (its shapes are set by resolution)"
            if isinstance(model, (str, os.PathLike)) else f"a {type(model).__name__}")
    raise FlowError(f"input shapes apply to ONNX models with symbolic input dimensions, not to "
                    f"{what}; drop them")


def _parameters(fn) -> set:
    import inspect
    return set(inspect.signature(fn).parameters)


def _load(directory, target) -> Compiled:
    """A saved npu artifact; `target` (when given) must run it (only timing may differ)."""
    from compiler.artifact import Artifact
    from isa.target import Target
    from npusim.runtime import check_compatible
    art = Artifact.load(directory)
    if target is None:
        target = art.target
    else:
        check_compatible(art.target, target, what=f"artifact {directory}")
    return Compiled(name=f"{art.model} ({directory})", target=Target.create(target),
                    artifact=art, source=str(directory))
