"""Op registry: one reference semantics, shape inference and attribute check per op."""

from .registry import REQUIRED, Attr, OpDef, get_op, list_ops, register_op

__all__ = ["Attr", "OpDef", "REQUIRED", "get_op", "list_ops", "register_op", "load_all"]

_loaded = False


def load_all() -> None:
    """Import every op table once (they call register_op at import)."""
    global _loaded
    if not _loaded:
        _loaded = True
        from . import elementwise, fused, nn, qnn, shape  # noqa: F401
