"""Exceptions of the compiler front half: each names the thing, the value, the limit and a hint."""

from __future__ import annotations

import difflib
from typing import Iterable

from isa.errors import NpusimError


class CompilerError(NpusimError):
    """Base class of every error the compiler raises on purpose."""


class GraphError(CompilerError):
    """The graph is malformed: a dangling edge, a cycle, a type mismatch, a bad attribute."""


class OpError(CompilerError):
    """An op is unknown, or its inputs/attributes are illegal for it."""


class FrontendError(CompilerError):
    """A model could not be imported (unsupported op, dynamic shape, bad attribute)."""


class OnnxRejectedError(FrontendError):
    """An ONNX file that onnx's checker or onnxruntime refuses: it is refused here too, with
    their reason (what onnxruntime cannot load, it cannot check our results against)."""


class QuantizationError(CompilerError):
    """The graph cannot be quantized to the NPU's int8 scheme as it stands."""


class PassError(CompilerError):
    """A pass is unknown, misconfigured, or ran out of order."""


class ZooError(CompilerError):
    """An unknown model name or an illegal model parameter."""


class BackendError(CompilerError):
    """A backend's toolchain or device failed: the C compiler, nvcc, a CUDA launch or copy."""


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """"did you mean 'x'? known: a, b, c" for an error message about an unknown `word`."""
    known = sorted(known)
    close = difflib.get_close_matches(word, known, n=1)
    guess = f"did you mean '{close[0]}'? " if close else ""
    return f"{guess}known: {', '.join(known)}"
