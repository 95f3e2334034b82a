"""What the subcommands share: the defaults, -t parsing with the flag in the message, the
trace file, the race-check flag and --input-shape."""

from __future__ import annotations

import os
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

from npusim.cli.errors import UsageError
from npusim.flow import DEFAULT_TARGET

DEFAULT_MODEL = "resnet18"
__all__ = ["DEFAULT_MODEL", "DEFAULT_TARGET", "all_target_kinds", "target_arg",
           "npu_target_arg", "check_writable", "save_trace", "add_races_argument", "race_warnings",
           "int_at_least", "non_negative", "add_input_shape_argument", "input_shapes_arg",
           "add_calibration_argument", "calibration_arg"]
RACE_LINES = 10  # races printed in --races warn mode; the count of the rest follows


def all_target_kinds() -> None:
    """Register every Target kind of the product before a target is parsed or listed: the cpu
    and gpu kinds come with their backends, found through the npusim.target_kinds entry points
    where the package is installed; importing the backends also serves a bare checkout."""
    import compiler.backends  # noqa: F401


def target_arg(text):
    """-t TEXT as a Target; a bad one is a one-line error naming the flag."""
    from isa.target import Target, TargetError
    all_target_kinds()
    try:
        return Target.create(text)
    except TargetError as e:
        raise UsageError(f"-t {text!r}: {e}") from None


def npu_target_arg(text):
    """-t TEXT for `npusim run`, which simulates npu targets only."""
    t = target_arg(text)
    if t.kind != "npu":
        raise UsageError(f"-t {text!r} is a {t.kind} target; `npusim run` simulates npu "
                         "targets (e.g. npu-edge, npu-tiny, npu-server)")
    return t


def check_writable(path: str | None) -> None:
    """Refuse an output file that cannot be written before any work is done (its folder is
    missing, or it is a folder), in the words save_trace would use after the run."""
    if not path:
        return
    p = Path(path)
    reason = ("Is a directory" if p.is_dir() else
              "No such file or directory" if not p.parent.is_dir() else
              "Permission denied" if not os.access(p.parent, os.W_OK) else None)
    if reason:
        raise UsageError(f"cannot write '{path}': {reason}")


def save_trace(result, path: str | None) -> None:
    """Write the Chrome trace if asked; an unwritable file is a one-line error."""
    if not path:
        return
    try:
        result.save_chrome_trace(path)
    except OSError as e:
        raise UsageError(f"cannot write '{path}': {e.strerror or e}") from None


def int_at_least(minimum: int):
    """argparse type: an integer (0x.. too) >= minimum, e.g. a seed (numpy's generators take
    no negative one) or a cycle limit."""
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    return parse


non_negative = int_at_least(0)


def add_races_argument(p) -> None:
    p.add_argument("--races", choices=("error", "warn", "off"),
                   help="the race check (docs/races.md): 'error' stops at the first access two "
                        "units make to overlapping data that no signal/wait or barrier orders; "
                        "'warn' reports each race on stderr and goes on; 'off' skips the check "
                        "(default: error; off with --timing-only)")


@contextmanager
def race_warnings(results: list):
    """Silence the model's RaceWarnings inside the block; afterwards print the races of the
    SimResults appended to `results` as `npusim: warning:` lines on stderr."""
    from npusim.faults import RaceWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RaceWarning)
        yield results
    races = [race for r in results for race in r.races]
    for race in races[:RACE_LINES]:
        print(f"npusim: warning: {race}", file=sys.stderr)
    if len(races) > RACE_LINES:
        print(f"npusim: warning: {len(races) - RACE_LINES} more races not shown "
              "(all are counted in --json's 'races')", file=sys.stderr)


def add_input_shape_argument(p) -> None:
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=SHAPE",
                   help="shape of an ONNX input with symbolic dimensions, e.g. "
                        "input=1x3x224x224 (repeat for several inputs)")


def input_shapes_arg(items: list) -> dict | None:
    """The --input-shape NAME=AxBxC flags as {name: (A, B, C)}; None when none is given. The
    syntax is checked here; whether NAME is an input and SHAPE fits it, by the importer."""
    shapes: dict = {}
    for item in items:
        name, eq, text = item.partition("=")
        dims = text.lower().split("x") if eq else []
        if not name or not all(d.strip().isdigit() for d in dims) or not dims:
            raise UsageError(f"--input-shape {item!r}: expected NAME=SHAPE with the dimensions "
                             "joined by 'x', e.g. input=1x3x224x224")
        shape = tuple(int(d) for d in dims)
        if min(shape) < 1:
            raise UsageError(f"--input-shape {item!r}: dimensions must be >= 1, got "
                             f"{'x'.join(map(str, shape))}")
        if name in shapes:
            raise UsageError(f"--input-shape {item!r}: input '{name}' is given twice")
        shapes[name] = shape
    return shapes or None


def add_calibration_argument(p) -> None:
    p.add_argument("--calibration", metavar="FILE.npz|DIR",
                   help="calibrate int8 scales on these inputs instead of random ones: an .npz "
                        "of arrays named as the model's inputs (a leading axis may stack "
                        "samples), or a folder of .npy files, one sample (or stack) each, "
                        "for a one-input model")


def calibration_arg(path: str | None) -> list | None:
    """--calibration as a list of feeds for compile(calib_inputs=...); the key '*' stands
    for a one-input model's input (a folder's .npy files, an .npz's unnamed arr_0). Shapes
    are fitted to the model's inputs by the calibrate pass, which names any mismatch."""
    if path is None:
        return None
    import numpy as np
    p = Path(path)
    try:
        if p.is_dir():
            files = sorted(p.glob("*.npy"))
            if not files:
                raise UsageError(f"--calibration {path}: the folder holds no .npy files")
            return [{"*": np.load(f, allow_pickle=False)} for f in files]
        with np.load(p, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise UsageError(f"--calibration {path}: cannot read it as an .npz file or a folder "
                         f"of .npy files ({e})") from None
    if not arrays:
        raise UsageError(f"--calibration {path}: the .npz holds no arrays")
    if list(arrays) == ["arr_0"]:
        arrays = {"*": arrays["arr_0"]}
    return [arrays]


def add_sequence_arguments(p) -> None:
    """--seq and --decode: the transformer zoo models' sequence length and decode step."""
    p.add_argument("--seq", type=int_at_least(1), metavar="N",
                   help="sequence length of zoo transformer models (bert-tiny, gpt2: its "
                        "prefill, or with --decode the KV cache the step reads)")
    p.add_argument("--decode", action="store_true",
                   help="gpt2: compile one decode step (one token reading and appending a KV "
                        "cache of --seq tokens in DRAM) instead of the prefill")


def sequence_kwargs(args) -> dict:
    """The zoo model parameters --seq/--decode give; an error for a model without them."""
    import inspect

    from compiler import zoo
    kw = {k: v for k, v in (("seq", args.seq), ("decode", args.decode or None)) if v is not None}
    if not kw:
        return {}
    fn = zoo.MODELS.get(str(args.model))
    takes = [n for n in zoo.list() if "seq" in inspect.signature(zoo.MODELS[n]).parameters]
    missing = [f"--{k}" for k in kw if fn is None or k not in inspect.signature(fn).parameters]
    if missing:
        from npusim.cli.errors import UsageError
        with_decode = [n for n in takes if "decode" in inspect.signature(zoo.MODELS[n]).parameters]
        raise UsageError(f"{' and '.join(missing)} apply to zoo transformer models (--seq: "
                         f"{', '.join(takes)}; --decode: {', '.join(with_decode)}), not to "
                         f"'{args.model}'")
    return kw
