"""Accuracy metrics between a reference output and a test output (SNR, top-1, max error)."""

from __future__ import annotations

import numpy as np


def snr_db(reference: np.ndarray, test: np.ndarray) -> float:
    """10 log10(sum ref^2 / sum (ref - test)^2); inf when equal."""
    ref = np.asarray(reference, np.float64)
    noise = float(np.sum((ref - np.asarray(test, np.float64)) ** 2))
    signal = float(np.sum(ref ** 2))
    if noise == 0.0:
        return float("inf")
    return float(10.0 * np.log10(signal / noise)) if signal > 0 else float("-inf")


def top1_agreement(reference: np.ndarray, test: np.ndarray) -> float:
    """Fraction of rows (leading dims flattened) whose argmax over the last axis agrees."""
    ref = np.asarray(reference).reshape(-1, np.shape(reference)[-1])
    tst = np.asarray(test).reshape(-1, np.shape(test)[-1])
    return float(np.mean(ref.argmax(axis=1) == tst.argmax(axis=1)))


def max_rel_error(reference: np.ndarray, test: np.ndarray) -> float:
    """max |ref - test| / max |ref| (a scale-free worst case)."""
    ref = np.asarray(reference, np.float64)
    scale = max(float(np.max(np.abs(ref))), 1e-30)
    return float(np.max(np.abs(ref - np.asarray(test, np.float64)))) / scale
