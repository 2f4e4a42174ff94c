"""`BufferView`: DI-engine's `buffer.view()`, a second buffer over the same stored items.

A view shares the storage (and the lock guarding it) but has its own middleware chain and
starts with none: `buffer.view().use(mw)` adds `mw` to the view only. A typical use is a
second sampler over one replay buffer, e.g. a view restricted to the newest items by
`sample_range_view`, or padding groups only where one learner needs it.
"""
from typing import Any

from ding.data.buffer.buffer import Buffer


class BufferView(Buffer):
    """Every stored-data call goes to the base buffer's own (middleware-free) implementation."""

    def __init__(self, base: Buffer) -> None:
        self._base = base
        super().__init__(base.size)
        self.lock = base.lock  # one storage, one lock

    def _push(self, *args: Any, **kwargs: Any) -> Any:
        return self._base._push(*args, **kwargs)

    def _sample(self, *args: Any, **kwargs: Any) -> Any:  # DI-engine's middleware may pass them positionally
        return self._base._sample(*args, **kwargs)

    def _update(self, *args: Any, **kwargs: Any) -> Any:
        return self._base._update(*args, **kwargs)

    def _delete(self, *args: Any, **kwargs: Any) -> Any:
        return self._base._delete(*args, **kwargs)

    def _clear(self) -> None:
        return self._base._clear()

    def count(self) -> int:
        return self._base.count()

    def get(self, i: int) -> Any:
        return self._base.get(i)

    def save_data(self, path: str) -> None:
        self._base.save_data(path)

    def load_data(self, path: str) -> None:
        self._base.load_data(path)

    def __getattr__(self, name: str) -> Any:
        # storage internals that middleware reads (slots_of, ids_at, rng, ...) are the base's
        if name.startswith('__') or name == '_base':
            raise AttributeError(name)
        return getattr(self._base, name)

    def __repr__(self) -> str:
        return f'BufferView({self._base!r})'
