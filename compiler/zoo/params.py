"""Deterministic synthetic weights: seeded He-init convs and dense layers, mild batch norms."""

from __future__ import annotations

import numpy as np

BLOCK = 1 << 15  # float64 draws per block (256 KB): stays in cache


class ParamGen:
    """Weights from one seeded generator, scaled so activations keep their magnitude
    layer after layer (He init for ReLU nets; residual branches scaled down)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def conv(self, cout: int, cin_per_group: int, k: int) -> np.ndarray:
        """OIHW weights, He-normal: std = sqrt(2 / fan_in)."""
        return self.normal((cout, cin_per_group, k, k), np.sqrt(2.0 / (cin_per_group * k * k)))

    def normal(self, shape: tuple, std) -> np.ndarray:
        """float32(standard_normal(shape) * std), drawn block by block into one small float64
        buffer: the same draws (the generator fills an array one draw after another) and the
        same products as one call, without a float64 copy of the whole tensor."""
        out = np.empty(shape, np.float32)
        flat = out.reshape(-1)
        buf = np.empty(min(BLOCK, flat.size))
        for start in range(0, flat.size, BLOCK):
            block = buf[:min(BLOCK, flat.size - start)]
            self.rng.standard_normal(out=block)
            block *= std
            flat[start:start + block.size] = block
        return out

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
        w = self.normal((fin, fout), np.sqrt(1.0 / fin))
        b = self.rng.normal(0.0, 0.01, fout)
        return w, b.astype(np.float32)
