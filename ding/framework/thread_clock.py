"""How much of a stretch of wall time the calling thread spent running, waiting to run, or blocked.

Why: async_mode's schedule asks whether an inline step kept its thread busy (thread CPU time over
wall time). On a machine whose cores other processes also want, a busy thread spends part of
the wall time runnable but not running, on the kernel's run queue, and its CPU share drops as
if it had waited for an env or a GPU (1.0 -> 0.26-0.37 with three CPU-spinning processes on
2 cores), so a busy step was misread as a waiting one. Linux reports that run-queue time per thread
(/proc/thread-self/schedstat: ns on a CPU, ns waiting on a run queue, timeslices); where it
does not exist the run-queue time reads 0 and the share is thread CPU over wall, as before.
CPU time comes from `time.thread_time()`: schedstat's own CPU figure of a running thread is
only brought up to date at the scheduler's ticks, milliseconds apart.
"""
import time
from typing import Optional, Tuple

_SCHEDSTAT = '/proc/thread-self/schedstat'
_has_schedstat: Optional[bool] = None  # found out on the first call


def run_queue_wait() -> float:
    """Seconds the calling thread has spent runnable but not running; 0.0 where the OS does not say."""
    global _has_schedstat
    if _has_schedstat is False:
        return 0.0
    try:
        with open(_SCHEDSTAT, 'rb') as f:
            queued_ns = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        _has_schedstat = False
        return 0.0
    _has_schedstat = True
    return queued_ns * 1e-9


def thread_clock() -> Tuple[float, float, float]:
    """(wall, CPU, run-queue wait) seconds of the calling thread so far; differences of two calls
    measure a stretch."""
    return time.perf_counter(), time.thread_time(), run_queue_wait()


def busy_share(start: Tuple[float, float, float], end: Tuple[float, float, float]) -> Optional[float]:
    """CPU time over the wall time the thread could have run (wall less its run-queue wait)
    between two `thread_clock()` readings; None for an empty stretch."""
    wall = (end[0] - start[0]) - (end[2] - start[2])
    return (end[1] - start[1]) / wall if wall > 0 else None
