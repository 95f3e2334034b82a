"""TVM-style compilation targets: kinds with typed attributes, named tags, derived values."""
from .attrs import SHAPE2D, Attr, TargetError
from .kinds import (CpuDerived, GpuDerived, NpuDerived, TargetKind, get_target_kind,
                    list_target_kinds, register_target_kind)
from .tags import TARGET_TAGS, TargetTag, get_tag, list_tags, register_tag
from .target import Target

__all__ = [
    "SHAPE2D", "Attr", "TargetError", "TargetKind", "NpuDerived", "CpuDerived", "GpuDerived",
    "register_target_kind", "get_target_kind", "list_target_kinds",
    "TARGET_TAGS", "TargetTag", "get_tag", "list_tags", "register_tag", "Target",
]
