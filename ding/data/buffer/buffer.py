"""`Buffer`: the replay-buffer interface and its middleware chain.

A buffer middleware is any callable `mw(action, chain, *args, **kwargs)`, where `action` is
one of `push`, `sample`, `update`, `delete`, `clear` and `chain(*args, **kwargs)` calls the
next middleware (and finally the buffer itself). It may change the arguments on the way in,
the result on the way out, or both, and passes actions it does not handle straight through.

The chains are composed once, in `use()`, so a call through k middlewares costs k function
calls and nothing else. Every public call holds the buffer's re-entrant lock, so a collector
thread may push while a learner thread samples (async mode), and a middleware may call back
into the buffer (e.g. delete from inside sample).
"""
import threading
from functools import partial
from typing import Any, Callable, Dict, List, Optional

from ding.data.buffer.buffered_data import BufferedData  # noqa: F401  (also importable from here)
from ding.utils.class_config import merged_class_config
from ding.config.schema import positive_int

ACTIONS = ('push', 'sample', 'update', 'delete', 'clear')


class Buffer:
    """Base class: public methods run through the middleware chain into `_push`, `_sample`, ..."""
    config = dict(type=None, replay_buffer_size=positive_int(10000))

    default_config = classmethod(merged_class_config)

    def __init__(self, size: int) -> None:
        if int(size) != size or size < 1:
            raise ValueError(f'buffer size must be a positive integer, got {size!r}')
        self.size = int(size)
        self.lock = threading.RLock()
        self._middleware: List[Callable] = []
        self._chains: Dict[str, Callable] = {}
        self._compose()

    # --- middleware ---------------------------------------------------------------------
    def use(self, middleware: Callable) -> 'Buffer':
        """Add a middleware (applied after those already added); chainable."""
        with self.lock:
            self._middleware.append(middleware)
            self._compose()
        return self

    @property
    def middleware(self) -> tuple:
        return tuple(self._middleware)

    def _compose(self) -> None:
        for action in ACTIONS:
            fn = getattr(self, '_' + action)
            for mw in reversed(self._middleware):
                fn = partial(mw, action, fn)
            self._chains[action] = fn

    # --- public API (through the chain) -------------------------------------------------
    def push(self, data: Any, meta: Optional[dict] = None) -> Any:
        """Store `data` (a Batch: all its rows; a dict: one row; anything else: one item)."""
        with self.lock:
            return self._chains['push'](data, meta)

    def sample(self, *args: Any, **kwargs: Any) -> Any:
        """`sample(size=None, indices=None, replace=False, sample_range=None,
        ignore_insufficient=False, groupby=None, unroll_len=None)`. The
        arguments reach the middleware as the caller passed them (positional or by name), so a
        middleware that unpacks them positionally works;
        `sampling.sample_arguments` names them. Other keywords are for middleware that takes its
        own (e.g. staleness_check's `train_iter_sample_data`); it removes them before the
        buffer's own sample."""
        with self.lock:
            return self._chains['sample'](*args, **kwargs)

    def update(self, index: Any, data: Any = None, meta: Optional[dict] = None) -> Any:
        with self.lock:
            return self._chains['update'](index, data, meta)

    def delete(self, index: Any) -> Any:
        with self.lock:
            return self._chains['delete'](index)

    def clear(self) -> None:
        with self.lock:
            return self._chains['clear']()

    # --- views, copies, torch Dataset ---------------------------------------------------
    def view(self) -> 'Buffer':
        """A buffer over the same stored items with a middleware chain of its own, empty at
        first (`BufferView`, below)."""
        return BufferView(self)

    def __copy__(self) -> 'Buffer':
        return self.view()  # a shallow copy shares the storage

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, i: int) -> Any:
        """The i-th stored item, oldest first: with `__len__`, a buffer is a torch map-style
        Dataset (e.g. `DataLoader(buffer_, collate_fn=...)`)."""
        return self.get(i)

    def __getstate__(self) -> Dict[str, Any]:
        # a lock cannot be copied or pickled; the chains are rebuilt from the middleware list
        state = self.__dict__.copy()
        state.pop('lock', None)
        state.pop('_chains', None)
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.RLock()
        self._chains = {}
        self._compose()

    # --- implemented by subclasses ------------------------------------------------------
    def _push(self, data: Any, meta: Optional[dict] = None) -> Any:
        raise NotImplementedError

    def _sample(self, **kwargs: Any) -> Any:
        raise NotImplementedError

    def _update(self, index: Any, data: Any = None, meta: Optional[dict] = None) -> Any:
        raise NotImplementedError

    def _delete(self, index: Any) -> Any:
        raise NotImplementedError

    def _clear(self) -> None:
        raise NotImplementedError

    def count(self) -> int:
        raise NotImplementedError

    def get(self, i: int) -> Any:
        raise NotImplementedError

    def save_data(self, path: str) -> None:
        raise NotImplementedError

    def load_data(self, path: str) -> None:
        raise NotImplementedError


class BufferView(Buffer):
    """`buffer.view()`: a second buffer over the same stored items. It shares the storage (and
    the lock guarding it) but has a middleware chain of its own, empty at first, e.g. a second
    sampler restricted to the newest items by `sample_range_view`. Every stored-data call goes
    to the base buffer's own (middleware-free) implementation."""

    def __init__(self, base: Buffer) -> None:
        self._base = base
        super().__init__(base.size)
        self.lock = base.lock  # one storage, one lock

    def _push(self, *args: Any, **kwargs: Any) -> Any:
        return self._base._push(*args, **kwargs)

    def _sample(self, *args: Any, **kwargs: Any) -> Any:  # a middleware may pass them positionally
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
