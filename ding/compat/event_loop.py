"""DI-engine's `EventLoop`: a named event bus (`on`, `once`, `off`, `emit`, `listened`, `stop`).

Our EventBus runs handlers in the emitting thread, so a handler has run when `emit` returns
(DI-engine hands them to a thread pool; code that sleeps after emitting sees the same result).
"""
import threading
from typing import Dict

from ding.framework.events import EventBus


class EventLoop(EventBus):
    _loops: Dict[str, 'EventLoop'] = {}
    _loops_lock = threading.Lock()

    def __init__(self, name: str = 'default') -> None:
        super().__init__()
        self.name = name

    @classmethod
    def get_event_loop(cls, name: str = 'default') -> 'EventLoop':
        """The loop called `name`, made on first use (one per name in this process)."""
        with cls._loops_lock:
            loop = cls._loops.get(name)
            if loop is None:
                loop = cls._loops[name] = cls(name)
            return loop

    def listened(self, event: str) -> bool:
        return self.has_handlers(event)

    def stop(self) -> None:
        """Drop every handler, release waiters, and forget this loop's name."""
        self.close()
        with self._loops_lock:
            if self._loops.get(self.name) is self:
                del self._loops[self.name]
