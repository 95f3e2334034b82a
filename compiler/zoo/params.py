"""Deterministic synthetic weights: seeded He-init convs and dense layers, mild batch norms.

The draws may be deferred (deferring()): a model whose code hands every ParamGen result
straight to its GraphBuilder (a ParamGen made with deferrable=True) gets empty arrays of the
right shapes at once, and a PendingConstants (compiler.ir.pending) draws them afterwards, one
after another in the order they were asked for: the same generator calls in the same order,
so the same values, while the compile's first passes and calibration already run."""

from __future__ import annotations

import contextlib
import threading

import numpy as np

BLOCK = 1 << 15  # float64 draws per block (256 KB): stays in cache
_DEFERRING = threading.local()  # .stack: this thread's deferring() blocks' PendingConstants


@contextlib.contextmanager
def deferring():
    """ParamGen(..., deferrable=True) made inside the block queue their draws on the
    PendingConstants it yields (start() it once the model is built)."""
    from ..ir.pending import PendingConstants
    pending = PendingConstants()
    stack = _DEFERRING.__dict__.setdefault("stack", [])
    stack.append(pending)
    try:
        yield pending
    finally:
        stack.remove(pending)


class ParamGen:
    """Weights from one seeded generator, scaled so activations keep their magnitude
    layer after layer (He init for ReLU nets; residual branches scaled down).

    deferrable: the model reads nothing this generator returns (it only passes the arrays
    on), so inside deferring() the draws may wait; such a model must not use `rng` itself."""

    def __init__(self, seed: int, deferrable: bool = False):
        self._rng = np.random.default_rng(seed)
        stack = getattr(_DEFERRING, "stack", None)
        self._pending = stack[-1] if deferrable and stack else None

    @property
    def rng(self) -> np.random.Generator:
        if self._pending is not None:
            raise RuntimeError("a deferred ParamGen's generator is drawn from by its queued "
                               "jobs only (its order is the weights' values); make this "
                               "ParamGen with deferrable=False to draw from it directly")
        return self._rng

    def _later(self, outputs: list, fn) -> list:
        """fn() now, or queued on the deferring block's PendingConstants."""
        if self._pending is None:
            fn()
        else:
            self._pending.add(outputs, fn)
        return outputs

    def conv(self, cout: int, cin_per_group: int, k: int) -> np.ndarray:
        """OIHW weights, He-normal: std = sqrt(2 / fan_in)."""
        return self.normal((cout, cin_per_group, k, k), np.sqrt(2.0 / (cin_per_group * k * k)))

    def normal(self, shape: tuple, std) -> np.ndarray:
        """float32(standard_normal(shape) * std), drawn block by block into one small float64
        buffer: the same draws (the generator fills an array one draw after another) and the
        same products as one call, without a float64 copy of the whole tensor."""
        out = np.empty(shape, np.float32)
        flat = out.reshape(-1)

        def draw() -> None:
            buf = np.empty(min(BLOCK, flat.size))
            for start in range(0, flat.size, BLOCK):
                block = buf[:min(BLOCK, flat.size - start)]
                self._rng.standard_normal(out=block)
                block *= std
                flat[start:start + block.size] = block
        return self._later([out], draw)[0]

    def bn(self, c: int, gamma_scale: float = 1.0) -> tuple:
        """(gamma, beta, mean, var): near-identity statistics, so folding is non-trivial but
        the scale of activations is kept; gamma_scale < 1 damps a residual branch."""
        out = [np.empty(c, np.float32) for _ in range(4)]
        views = [a.view() for a in out]  # writable, whatever the graph makes of `out`

        def draw() -> None:
            r = self._rng
            gamma = r.uniform(0.8, 1.2, c) * gamma_scale
            beta = r.normal(0.0, 0.05, c)
            mean = r.normal(0.0, 0.05, c)
            var = r.uniform(0.8, 1.2, c)
            for view, a in zip(views, (gamma, beta, mean, var)):
                view[...] = a.astype(np.float32)
        return tuple(self._later(out, draw))

    def dense(self, fin: int, fout: int) -> tuple:
        """(w (in, out), b): std = sqrt(1 / fan_in) keeps logits at the features' scale."""
        w = self.normal((fin, fout), np.sqrt(1.0 / fin))
        b = np.empty(fout, np.float32)
        view = b.view()

        def draw() -> None:
            view[...] = self._rng.normal(0.0, 0.01, fout).astype(np.float32)
        return w, self._later([b], draw)[0]
