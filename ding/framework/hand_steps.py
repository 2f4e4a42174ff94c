"""`task.forward` / `task.backward` / `task.sync` for a user who drives the steps by hand.

In async mode each `forward(fn)` and `backward()` is submitted to a pool of
`n_async_workers` threads and returns at once; `sync()` waits for everything submitted. So a
middleware blocked in `task.wait_for` on an event that a later one emits is released by it.
The first exception is raised by `sync()`; before that every `wait_for` in progress is
released (it returns None), so no submitted part stays blocked on an event that will not come.
"""
import concurrent.futures as futures
import threading
from typing import Any, Callable, List, Optional


class HandSteps:

    def __init__(self, release_waiters: Callable[[], None]) -> None:
        self._release_waiters = release_waiters
        self._pool: Optional[futures.ThreadPoolExecutor] = None
        self._pending: List[futures.Future] = []
        self._lock = threading.Lock()

    def submit(self, n_workers: int, fn: Callable, *args: Any) -> None:
        with self._lock:
            if self._pool is None:
                self._pool = futures.ThreadPoolExecutor(max(1, n_workers), thread_name_prefix='ding-hand-step')
            self._pending.append(self._pool.submit(fn, *args))

    def sync(self) -> None:
        """Wait for every submitted part; raise the first exception (after releasing waiters)."""
        with self._lock:
            pending, self._pending = self._pending, []
        if not pending:
            return
        done, not_done = futures.wait(pending, return_when=futures.FIRST_EXCEPTION)
        failed = [f for f in pending if f in done and f.exception() is not None]
        if failed:
            self._release_waiters()
            futures.wait(not_done)
            raise failed[0].exception()

    def shutdown(self) -> None:
        """Join the pool's threads (call after releasing waiters); pending results are dropped."""
        with self._lock:
            pool, self._pool, self._pending = self._pool, None, []
        if pool is not None:
            pool.shutdown(wait=True)
