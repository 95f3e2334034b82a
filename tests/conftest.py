"""Test-session setup shared by every test folder."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _front_half_cache(tmp_path_factory):
    """Compiles cache their front half in a session folder, never in the user's ~/.cache
    (NPUSIM_CACHE_DIR reaches CLI subprocesses too); tests of the cache set their own."""
    old = os.environ.get("NPUSIM_CACHE_DIR")
    os.environ["NPUSIM_CACHE_DIR"] = str(tmp_path_factory.mktemp("npusim-cache"))
    yield
    if old is None:
        os.environ.pop("NPUSIM_CACHE_DIR", None)
    else:
        os.environ["NPUSIM_CACHE_DIR"] = old
