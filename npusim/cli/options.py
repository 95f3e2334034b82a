"""What `npusim run` and `npusim compile` share: the defaults, -t parsing with the flag in the
message, and the trace file."""

from __future__ import annotations

from npusim.cli.errors import UsageError
from npusim.flow import DEFAULT_TARGET

DEFAULT_MODEL = "resnet18"
__all__ = ["DEFAULT_MODEL", "DEFAULT_TARGET", "target_arg", "npu_target_arg", "save_trace"]


def target_arg(text):
    """-t TEXT as a Target; a bad one is a one-line error naming the flag."""
    from isa.target import Target, TargetError
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


def save_trace(result, path: str | None) -> None:
    """Write the Chrome trace if asked; an unwritable file is a one-line error."""
    if not path:
        return
    try:
        result.save_chrome_trace(path)
    except OSError as e:
        raise UsageError(f"cannot write '{path}': {e.strerror or e}") from None
