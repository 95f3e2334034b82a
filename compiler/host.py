"""The host's steps after a device run: dequantize (int8 outputs), then the peeled tail ops
(layout transposes, softmax) in order - one helper for the NPU, the C-like backends and the
integer reference alike."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import qscheme as qs
from .errors import CompilerError
from .ops.elementwise import softmax


@dataclass(frozen=True)
class HostOutput:
    """Device tensor `device` gives model output `model`: dequantized by `scale` (int8; None
    for float outputs, which are widened to float32), then the `post` steps."""

    device: str
    model: str
    scale: float | None
    post: tuple = ()     # ("transpose", perm) / ("softmax", axis), applied in order

    @classmethod
    def of(cls, entry) -> "HostOutput":
        """From an artifact TensorEntry (name, model_name, scale, post)."""
        return cls(entry.name, entry.model_name, entry.scale, tuple(entry.post or ()))

    def finish(self, y: np.ndarray) -> np.ndarray:
        y = qs.dequantize(y, self.scale) if self.scale is not None else \
            np.asarray(y).astype(np.float32)
        return apply_post(y, self.post)


def apply_post(y: np.ndarray, post) -> np.ndarray:
    for kind, arg in post:
        if kind == "transpose":
            y = np.ascontiguousarray(y.transpose(arg))
        elif kind == "softmax":
            y = softmax(y, arg)
        else:
            raise CompilerError(f"unknown host step '{kind}' (arg {arg!r}); the host runs "
                                "transpose and softmax")
    return y


def host_outputs(outputs: dict, specs) -> dict:
    """Device outputs (by device name) -> float outputs named as the model's."""
    missing = [s.device for s in specs if s.device not in outputs]
    if missing:
        raise CompilerError(f"device output(s) {', '.join(missing)} missing; got "
                            f"{', '.join(outputs) or 'none'}")
    return {s.model: s.finish(outputs[s.device]) for s in specs}
