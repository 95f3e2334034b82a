"""FlowError: a flow call that cannot be done as asked (its arguments, not the compiler's or the
simulator's verdict, which raise their own errors)."""

from __future__ import annotations

from isa.errors import NpusimError


class FlowError(NpusimError):
    """compile/simulate/verify/run asked for something the model or result cannot give: a
    resolution for an ONNX file, simulating a cpu build, verifying a timing-only run, ..."""
