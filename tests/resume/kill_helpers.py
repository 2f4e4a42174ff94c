"""Killing a training subprocess mid-run, for the resume tests."""
import signal
import time
from typing import Callable


def sigkill_once(victim, reached: Callable[[], bool], timeout_s: float, poll_s: float = 0.05) -> None:
    """SIGKILL `victim` (a Popen with stderr piped) as soon as `reached()` holds; fail if it
    exits first or `reached()` does not hold within `timeout_s`."""
    deadline = time.time() + timeout_s
    while not reached():
        assert victim.poll() is None, victim.stderr.read().decode()
        assert time.time() < deadline, 'the run made no checkpoint in time'
        time.sleep(poll_s)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
