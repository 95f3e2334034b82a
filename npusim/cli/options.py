"""What `npusim run` and `npusim compile` share: the defaults, -t parsing with the flag in the
message, and the trace file."""

from __future__ import annotations

from npusim.cli.errors import UsageError
from npusim.flow import DEFAULT_TARGET

DEFAULT_MODEL = "resnet18"
__all__ = ["DEFAULT_MODEL", "DEFAULT_TARGET", "all_target_kinds", "target_arg",
           "npu_target_arg", "save_trace"]


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


def save_trace(result, path: str | None) -> None:
    """Write the Chrome trace if asked; an unwritable file is a one-line error."""
    if not path:
        return
    try:
        result.save_chrome_trace(path)
    except OSError as e:
        raise UsageError(f"cannot write '{path}': {e.strerror or e}") from None
