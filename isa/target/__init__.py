"""TVM-style compilation targets: kinds with typed attributes, named tags, derived values; the
npu kind here, other kinds from the packages that bring them (isa.target.plugins)."""
from .attrs import SHAPE2D, Attr, TargetError
from .kinds import (NpuDerived, TargetKind, get_target_kind, list_target_kinds,
                    register_target_kind)
from .plugins import load_plugins
from .tags import TARGET_TAGS, TargetTag, get_tag, list_tags, register_tag
from .target import Target

__all__ = [
    "SHAPE2D", "Attr", "TargetError", "TargetKind", "NpuDerived",
    "register_target_kind", "get_target_kind", "list_target_kinds", "load_plugins",
    "TARGET_TAGS", "TargetTag", "get_tag", "list_tags", "register_tag", "Target",
]
