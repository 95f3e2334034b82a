"""Shared, session-cached models for the compiler tests (kept small so the suite stays fast)."""

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def backend_registry():
    """Every test sees the built-in backends only: a registration it makes is undone after it
    (the registry is process-wide and xdist workers run tests in any order)."""
    from compiler.backends import REGISTRY
    with REGISTRY.isolated() as registry:
        yield registry


@pytest.fixture(scope="session")
def resnet18_32():
    from compiler import zoo
    return zoo.get("resnet18", resolution=32)


@pytest.fixture(scope="session")
def resnet18_q(resnet18_32):
    from compiler import build_quantized
    return build_quantized(resnet18_32, num_calib=4, seed=0)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def feed():
    """feed(graph, seed=7): one standard-normal sample for every input of `graph`."""
    def make(graph, seed=7):
        r = np.random.default_rng(seed)
        return {v: r.standard_normal(graph.type_of(v).shape).astype(np.float32)
                for v in graph.inputs}
    return make
