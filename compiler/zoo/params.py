"""Deterministic synthetic weights: seeded He-init convs and dense layers, mild batch norms."""

from __future__ import annotations

import numpy as np


class ParamGen:
    """Weights from one seeded generator, scaled so activations keep their magnitude
    layer after layer (He init for ReLU nets; residual branches scaled down)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def conv(self, cout: int, cin_per_group: int, k: int) -> np.ndarray:
        """OIHW weights, He-normal: std = sqrt(2 / fan_in)."""
        std = np.sqrt(2.0 / (cin_per_group * k * k))
        w = self.rng.standard_normal((cout, cin_per_group, k, k))
        w *= std  # in place: the same float64 product, without a second large temporary
        return w.astype(np.float32)

    def bn(self, c: int, gamma_scale: float = 1.0) -> tuple:
        """(gamma, beta, mean, var): near-identity statistics, so folding is non-trivial but
        the scale of activations is kept; gamma_scale < 1 damps a residual branch."""
        r = self.rng
        gamma = r.uniform(0.8, 1.2, c) * gamma_scale
        beta = r.normal(0.0, 0.05, c)
        mean = r.normal(0.0, 0.05, c)
        var = r.uniform(0.8, 1.2, c)
        return tuple(a.astype(np.float32) for a in (gamma, beta, mean, var))

    def dense(self, fin: int, fout: int) -> tuple:
        """(w (in, out), b): std = sqrt(1 / fan_in) keeps logits at the features' scale."""
        w = self.rng.standard_normal((fin, fout))
        w *= np.sqrt(1.0 / fin)
        b = self.rng.normal(0.0, 0.01, fout)
        return w.astype(np.float32), b.astype(np.float32)
