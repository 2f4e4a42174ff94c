"""In-process events: `on` / `once` / `off` / `emit` / `wait_for`.

Handlers run synchronously in the emitting thread (a stage thread in async mode), so an
event emitted by a middleware is handled before that middleware returns. A remote backend
(see router.py) delivers events from other nodes by calling `emit` here.
"""
import math
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

Handler = Callable[..., Any]


class EventBus:

    def __init__(self) -> None:
        self._cv = threading.Condition(threading.RLock())
        self._handlers: Dict[str, List[Tuple[Handler, bool]]] = {}
        self._closed = False
        self._releases = 0  # bumped by release_waiters(): every wait_for then in progress returns None

    def on(self, event: str, fn: Handler) -> None:
        with self._cv:
            self._handlers.setdefault(event, []).append((fn, False))

    def once(self, event: str, fn: Handler) -> None:
        with self._cv:
            self._handlers.setdefault(event, []).append((fn, True))

    def off(self, event: str, fn: Optional[Handler] = None) -> None:
        """Remove every handler of `event`, or only `fn`."""
        with self._cv:
            if fn is None:
                self._handlers.pop(event, None)
                return
            kept = [(h, once) for h, once in self._handlers.get(event, []) if h != fn]
            if kept:
                self._handlers[event] = kept
            else:
                self._handlers.pop(event, None)

    def has_handlers(self, event: str) -> bool:
        """Whether anything listens to `event` (a remote router holds events until then)."""
        with self._cv:
            return bool(self._handlers.get(event))

    def emit(self, event: str, *args: Any, **kwargs: Any) -> None:
        with self._cv:
            handlers = self._handlers.get(event, [])
            if any(once for _, once in handlers):
                self._handlers[event] = [(h, once) for h, once in handlers if not once]
        for fn, _ in handlers:
            fn(*args, **kwargs)

    def wait_for(self, event: str, timeout: float = math.inf, ignore_timeout_exception: bool = True,
                 cancelled: Callable[[], bool] = lambda: False,
                 on_listening: Optional[Callable[[], None]] = None) -> Optional[Tuple[tuple, dict]]:
        """Block until `event` is emitted; returns its `(args, kwargs)`.

        On timeout returns None (or raises TimeoutError when `ignore_timeout_exception` is
        False); `close()` (task.stop) and `release_waiters()` (a failed run) release every
        waiter with None. So does `cancelled()` true, checked before waiting and at each release:
        a run that failed before this wait began releases it too. `on_listening` runs once this
        waiter listens, before it blocks: what it sets off may emit the event at once.
        """
        received: List[Tuple[tuple, dict]] = []

        def _receive(*args: Any, **kwargs: Any) -> None:
            with self._cv:
                received.append((args, kwargs))
                self._cv.notify_all()

        with self._cv:
            releases = self._releases
            self.once(event, _receive)
        if on_listening is not None:
            try:
                on_listening()
            except BaseException:
                self.off(event, _receive)  # no stale handler left for a wait that never began
                raise
        with self._cv:
            self._cv.wait_for(lambda: received or self._closed or self._releases != releases or cancelled(),
                              None if math.isinf(timeout) else timeout)
            if received:
                return received[0]
            self.off(event, _receive)
            released = self._closed or self._releases != releases or cancelled()
        if not released and not ignore_timeout_exception:
            raise TimeoutError(f'no {event!r} event within {timeout} s')
        return None

    def release_waiters(self) -> None:
        """Return None from every `wait_for` in progress; handlers stay (the bus stays usable)."""
        with self._cv:
            self._releases += 1
            self._cv.notify_all()

    def close(self) -> None:
        """Drop every handler and release every `wait_for`."""
        with self._cv:
            self._closed = True
            self._handlers.clear()
            self._cv.notify_all()
