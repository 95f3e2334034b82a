"""Graph passes and the PassManager that runs them."""

from .base import Pass, PassContext, PassManager, get_pass, list_passes, register_pass

__all__ = ["Pass", "PassContext", "PassManager", "get_pass", "list_passes", "register_pass"]
