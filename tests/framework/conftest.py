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


@pytest.fixture
def cpu_hogs():
    """Processes spinning on every core this process may use, and one more, for the test's
    duration: the test's threads then wait on the run queue for a core part of the time."""
    import subprocess
    import sys
    import time

    from ding.framework.thread_budget import usable_cores
    hogs = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(usable_cores() + 1)]
    time.sleep(0.3)  # past their interpreter start-up
    try:
        yield len(hogs)
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait(timeout=10)
