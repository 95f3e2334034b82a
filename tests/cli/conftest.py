"""CLI tests: the process-wide backend registry restored after every test."""

import pytest


@pytest.fixture(autouse=True)
def backend_registry():
    """A registration a test makes is undone after it (xdist runs tests in any order)."""
    from compiler.backends import REGISTRY
    with REGISTRY.isolated() as registry:
        yield registry
