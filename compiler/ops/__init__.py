"""Op registry: one definition per op (references, shape inference, traits, hooks by name)."""

from .registry import (HOOKS, REQUIRED, TRAITS, Attr, OpDef, get_hook, get_op, has_trait,
                       import_package, list_ops, register_hook, register_op)

__all__ = ["Attr", "OpDef", "REQUIRED", "HOOKS", "TRAITS", "get_op", "get_hook", "has_trait",
           "list_ops", "register_op", "register_hook", "import_package", "load_all"]

_loaded = False


def load_all() -> None:
    """Import every module of this package once (each op file calls register_op at import,
    so a new op's file is found by being here)."""
    global _loaded
    if not _loaded:
        _loaded = True
        import_package(__name__)
