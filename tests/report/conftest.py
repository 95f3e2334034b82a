"""Report tests: a small traced run and a small DSE trial table, built once per module."""

import pytest
from report_data import study_frame


@pytest.fixture(scope="session")
def small_run():
    """small_cnn on npu-tiny at 16x16, verified, with its trace."""
    from npusim import flow
    return flow.run("small_cnn", "npu-tiny", resolution=16, trace=True)


@pytest.fixture
def study():
    return study_frame()
