"""Watchdog of the envs a serial manager steps in this process: a hung env is reported.

Why: a subprocess manager kills and restarts a worker whose step exceeds `step_timeout`; an
env stepped in this process cannot be interrupted (Python cannot stop a thread), so a hung
`step` or `reset` used to hang the run in silence. Here a thread looks every few seconds at
what the manager is waiting for and, once a step has waited `step_timeout` seconds (a reset
`reset_timeout`), logs a WARNING on `ding.envs.faults` naming the env, how long it has waited
and where it waits; it repeats every timeout while the wait goes on. It only logs.

The hot path pays one `time.monotonic()`, one `threading.get_ident()` and two attribute writes
per `step_batch`: the manager sets `manager._watch = (start, results, env_id, thread)` before
stepping (`results`: the list the envs' results are appended to, so its length names the env
being stepped; `env_id` for a reset; `thread`: the one stepping, whose frame says where it
waits) and `None` after.
"""
import logging
import sys
import threading
import time
import traceback
import weakref
from typing import Any, Optional

logger = logging.getLogger('ding.envs.faults')


class EnvWatchdog:
    """`EnvWatchdog(manager, step_timeout, reset_timeout).start()`; `stop()` at close."""

    def __init__(self, manager: Any, step_timeout: Optional[float], reset_timeout: Optional[float]) -> None:
        self._manager = weakref.ref(manager)  # the thread must not keep an unclosed manager alive
        self._timeouts = {'step': step_timeout, 'reset': reset_timeout}
        limits = [t for t in self._timeouts.values() if t is not None]
        self._interval = max(0.05, min(5.0, min(limits) / 4)) if limits else None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def start(self) -> None:
        if self._interval is None:
            return
        self._thread = threading.Thread(target=self._run, name='ding-env-watchdog', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        self._thread = None

    def _run(self) -> None:
        seen, next_warn = None, 0.0
        while not self._stop.wait(self._interval):
            manager = self._manager()
            if manager is None:
                return
            watch, who, label = manager._watch, type(manager).__name__, manager._streaks.label
            del manager
            if watch is None:
                seen = None
                continue
            start, results, env_id, stepping = watch
            kind = 'step' if env_id is None else 'reset'
            timeout = self._timeouts[kind]
            if timeout is None:
                continue
            if watch is not seen:
                seen, next_warn = watch, float(timeout)
            waited = time.monotonic() - start
            if waited >= next_warn:
                next_warn = waited + float(timeout)
                if env_id is not None:
                    env = label([env_id])
                elif results is not None:  # all envs step in order: the next one to return is the stuck one
                    env = label([len(results)])
                else:
                    env = 'an env'  # the slow path, some envs not ready
                logger.warning('%s: %s has not returned from %s for %.0f s (%s_timeout=%g s); an env stepped in this '
                               'process cannot be interrupted, so the run waits on it%s', who, env, kind, waited,
                               kind, timeout, _where(stepping))


def _where(thread_id: int) -> str:
    """'; it waits in file:line in function': the innermost frame of the stepping thread."""
    frame = sys._current_frames().get(thread_id)
    if frame is None:
        return ''
    last = traceback.extract_stack(frame, limit=1)[-1]
    return f'; it waits in {last.filename}:{last.lineno} in {last.name}'
