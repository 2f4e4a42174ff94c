"""A watchdog for the local Ray cluster a driver (`ditask`, `ding train --collectors`) starts.

When the driver is SIGKILLed it cannot shut Ray down, and some of Ray's processes outlive it
(DashboardAgent and RuntimeEnvAgent are left to init when their raylet goes). This small
process, started next to the cluster, notes the driver's descendants every half second while
the driver lives; once the driver is gone it ends every one of them that is still there
(SIGTERM, then SIGKILL). Linux only (it reads /proc); elsewhere it is not started.

    python -m ding.framework.distributed.watchdog DRIVER_PID
"""
import contextlib
import os
import signal
import subprocess
import sys
import time
from typing import Dict, Optional, Tuple

POLL_S = 0.5


def _stat(pid: int) -> Optional[Tuple[int, int]]:
    """(parent pid, start time) of a live process, or None."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(')') + 2:].split()  # the name may hold spaces and parentheses
    if fields[0] == 'Z':
        return None
    return int(fields[1]), int(fields[19])


def descendants(root: int) -> Dict[int, int]:
    """{pid: start time} of every live descendant of `root`."""
    stats = {int(name): _stat(int(name)) for name in os.listdir('/proc') if name.isdigit()}
    parent_of = {pid: stat for pid, stat in stats.items() if stat is not None}
    found: Dict[int, int] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, start) in parent_of.items():
            if ppid == parent and pid not in found:
                found[pid] = start
                frontier.append(pid)
    return found


def _end(seen: Dict[int, int]) -> None:
    me = os.getpid()
    alive = {pid: start for pid, start in seen.items() if pid != me and (_stat(pid) or (0, -1))[1] == start}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        deadline = time.monotonic() + 3.0
        while alive and time.monotonic() < deadline:
            alive = {pid: start for pid, start in alive.items() if (_stat(pid) or (0, -1))[1] == start}
            time.sleep(0.1)


def watch(driver: int) -> None:
    seen: Dict[int, int] = {}
    driver_start = (_stat(driver) or (0, None))[1]
    while (_stat(driver) or (0, None))[1] == driver_start and driver_start is not None:
        seen.update(descendants(driver))
        time.sleep(POLL_S)
    _end(seen)


def start_watchdog(driver: Optional[int] = None) -> Optional[subprocess.Popen]:
    """Start the watchdog for `driver` (default: this process); None where /proc is missing."""
    if not os.path.isdir('/proc'):
        return None
    driver = os.getpid() if driver is None else driver
    # its own session: the Ctrl-C that reaches the driver's process group does not end it first
    return subprocess.Popen([sys.executable, '-m', 'ding.framework.distributed.watchdog', str(driver)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


if __name__ == '__main__':
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(int(sys.argv[1]))
