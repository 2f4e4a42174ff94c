import threading

import pytest

from ding.framework import task


@pytest.fixture
def fresh_task():
    """The global task, stopped after the test; fails the test if a thread it started outlives stop()."""
    before = set(threading.enumerate())
    yield task
    task.stop()
    assert set(threading.enumerate()) - before == set()
