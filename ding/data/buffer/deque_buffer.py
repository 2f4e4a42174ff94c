"""`DequeBuffer(size)`: a FIFO replay buffer stored as columns in preallocated ring arrays.

Every stored row gets an id, counting up from 0 over the buffer's life; row `id` lives in
slot `id % size`. Pushing past `size` overwrites the oldest slots. `delete` leaves a hole that
is skipped by sampling and refilled when the ring comes round to it. `get(i)` and
`sample_range` see the live rows in push order, oldest first.

Sampling draws slot numbers with numpy and gathers each column with one fancy index; the
`BufferedData` views are built only if a caller iterates the sample.
Randomness comes from `self.rng`, seeded from numpy's global RNG when the buffer is made,
so `set_pkg_seed` before building the buffer makes runs repeat.
"""
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.data.buffer.buffer import Buffer
from ding.data.buffer.buffer_file import load_buffer, save_buffer
from ding.data.buffer.buffered_data import BufferedData, SampledBatch
from ding.data.buffer.grouping import sample_groups
from ding.data.buffer.meta_columns import MetaColumns, is_per_row, meta_of_rows
from ding.data.buffer.mixed_items import become_whole_items, fits_columns, push_rows_as_items
from ding.data.buffer.ring_columns import RingColumns, copy_rows
from ding.data.buffer.sampling import affordable, draw_positions, indices_given
from ding.utils.registry import BUFFER_REGISTRY


@BUFFER_REGISTRY.register('deque')
class DequeBuffer(Buffer):
    config = dict(type='deque', replay_buffer_size=10000)

    def __init__(self, size: int, sliced: bool = False) -> None:
        super().__init__(size)
        # `sliced`: a grouped sample with unroll_len cuts windows at multiples of
        # unroll_len (fewer overlapping, duplicate windows) instead of at any start
        self.sliced = bool(sliced)
        self.rng = np.random.default_rng(np.random.randint(2**31))
        self._reset()

    def _reset(self) -> None:
        self._columns: Optional[RingColumns] = None
        self._whole_items = False  # True: items are arbitrary objects in one column 'data'
        self._meta = MetaColumns(self.size)  # push-time meta, by key
        self._ids = np.full(self.size, -1, dtype=np.int64)  # id held by each slot, -1 = none
        self._next_id = getattr(self, '_next_id', 0)
        self._oldest_id = self._next_id  # no row older than this is live
        self._count = 0
        self._live_cache: Optional[Tuple[int, np.ndarray]] = None
        self._version = 0  # bumped by every change of which rows are live
        self._named_meta_keys: List[str] = []  # named by `meta_index = {key: []}` (di_engine_views.py)

    # --- bookkeeping --------------------------------------------------------------------
    def count(self) -> int:
        return self._count

    def _window(self) -> Tuple[int, int]:
        """(id of the oldest slot in use, number of slots in use)."""
        first = max(self._oldest_id, self._next_id - self.size)
        return first, self._next_id - first

    def _live_slots(self) -> np.ndarray:
        """Slots of live rows, oldest first (cached until the next change)."""
        if self._live_cache is None or self._live_cache[0] != self._version:
            first, n = self._window()
            slots = (first + np.arange(n, dtype=np.int64)) % self.size
            if n != self._count:
                slots = slots[self._ids[slots] >= 0]
            self._live_cache = (self._version, slots)
        return self._live_cache[1]

    def slots_of(self, index: Any, strict: bool = True) -> Tuple[np.ndarray, np.ndarray]:
        """(slots, found mask) of buffer ids; `strict` raises KeyError for ids not stored (an
        index that is no integer, e.g. a string id, is never stored)."""
        try:
            ids = np.atleast_1d(np.asarray(index, dtype=np.int64))
        except (TypeError, ValueError):
            if strict:
                raise KeyError(f'buffer ids are integers; {index!r} is not one') from None
            n = np.size(np.asarray(index, dtype=object))
            return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
        slots = ids % self.size
        found = self._ids[slots] == ids
        if strict and not found.all():
            raise KeyError(f'ids not in the buffer (overwritten or deleted): {ids[~found].tolist()}')
        return slots, found

    def ids_at(self, slots: np.ndarray) -> np.ndarray:
        return self._ids[slots]

    # --- push ---------------------------------------------------------------------------
    def _push(self, data: Any, meta: Optional[dict] = None) -> Any:
        if isinstance(data, Batch):
            return self._push_batch(data, meta)
        fresh = self._columns is None
        if fresh:
            self._whole_items = not isinstance(data, Mapping)
            first_row = {'data': None} if self._whole_items else data
            self._columns = RingColumns.for_row(self.size, first_row)
        if not self._whole_items and not fits_columns(self, data):
            become_whole_items(self)  # the buffer holds any object (mixed_items.py)
        if self._whole_items:
            write = lambda slot: self._columns.arrays['data'].__setitem__(slot, data)  # noqa: E731
        else:
            write = lambda slot: self._columns.write_row(slot, data)  # noqa: E731
        slot, first_id = self._write_then_claim(1, write, fresh)
        self._meta.write(slice(slot, slot + 1), meta, 1)
        return BufferedData(data, first_id, {} if meta is None else meta)

    def _push_batch(self, data: Batch, meta: Optional[dict]) -> Any:
        if self._whole_items or (self._columns is not None and self._columns.arrays.keys() != set(data.keys())):
            return push_rows_as_items(self, data, meta)
        n = len(data)
        if n > self.size:  # only the newest `size` rows would survive; the others still get ids
            self._next_id += n - self.size
            data = data[n - self.size:]
            meta = meta_of_rows(meta, n, slice(n - self.size, None))
            n = self.size
        fresh = self._columns is None
        if fresh:
            self._columns = RingColumns.for_batch(self.size, data)

        def write(start: int) -> None:
            split = min(n, self.size - start)
            if split == n:
                self._columns.write_rows(slice(start, start + n), data)
            else:  # the rows wrap round the end of the ring
                self._columns.write_rows(slice(start, self.size), data[:split])
                self._columns.write_rows(slice(0, n - split), data[split:])

        start, first_id = self._write_then_claim(n, write, fresh)
        self._meta.write((start + np.arange(n)) % self.size if start + n > self.size else slice(start, start + n),
                         meta, n)
        return SampledBatch(data, np.arange(first_id, first_id + n, dtype=np.int64))

    def _write_then_claim(self, n: int, write: Any, fresh: bool) -> Tuple[int, int]:
        """Write the next `n` slots, then give them ids. A write that fails (wrong fields or
        shapes) drops the old rows it may have half overwritten, so no id points at mixed data."""
        start = self._next_id % self.size
        try:
            write(start)
        except BaseException:
            if fresh:
                self._columns, self._whole_items = None, False
            else:
                self._drop((start + np.arange(n)) % self.size)
            raise
        return self._claim(n)

    def _claim(self, n: int) -> Tuple[int, int]:
        """Reserve the next `n` slots (n <= size): (first slot, first id)."""
        first_id, start = self._next_id, self._next_id % self.size
        end = start + n
        if end <= self.size:
            old = self._ids[start:end]
            overwritten = int(np.count_nonzero(old >= 0))
            old[:] = np.arange(first_id, first_id + n)
        else:
            slots = np.r_[start:self.size, 0:end - self.size]
            overwritten = int(np.count_nonzero(self._ids[slots] >= 0))
            self._ids[slots] = np.arange(first_id, first_id + n)
        self._next_id += n
        self._count += n - overwritten
        self._version += 1
        return start, first_id

    # --- sample -------------------------------------------------------------------------
    def _sample(self, size: Optional[int] = None, indices: Any = None, replace: bool = False,
                sample_range: Optional[slice] = None, ignore_insufficient: bool = False,
                groupby: Optional[str] = None, unroll_len: Optional[int] = None) -> Any:
        if indices_given(indices):
            return self.gather(self.slots_of(indices)[0])
        if groupby is not None:
            return sample_groups(self, size, groupby, replace, unroll_len, sample_range, ignore_insufficient)
        if unroll_len not in (None, 1):
            raise ValueError('unroll_len needs groupby (windows are cut within each group)')
        if size is None:
            raise ValueError('sample needs a size or indices')
        first, n_window = self._window()
        if sample_range is None and n_window == self._count:  # fast path: no holes
            n = self._count
            to_slots = lambda pos: (first + pos) % self.size  # noqa: E731
        else:
            live = self._live_slots()
            if sample_range is not None:
                live = live[sample_range]
            n = len(live)
            to_slots = live.__getitem__
        # too few rows with ignore_insufficient gives an empty sample, not a partial one
        size = affordable(size, n, replace, ignore_insufficient, partial=False)
        return self.gather(to_slots(draw_positions(self.rng, n, size, replace)))

    def gather(self, slots: np.ndarray) -> SampledBatch:
        """A SampledBatch of the rows at `slots` (one fancy index per column)."""
        slots = np.asarray(slots, dtype=np.int64)
        if self._columns is None:
            return SampledBatch(Batch(), slots, whole_items=self._whole_items)
        return SampledBatch(self._columns.read(slots), self._ids[slots], None, self._meta.read(slots),
                            self._whole_items)

    # --- update / delete / clear / get --------------------------------------------------
    def _update(self, index: Any, data: Any = None, meta: Optional[dict] = None) -> Any:
        """Replace data and/or meta of stored rows; returns whether each id was found."""
        scalar = np.ndim(index) == 0
        slots, found = self.slots_of(index, strict=False)
        slots = slots[found]
        if data is not None and len(slots):
            if scalar and not self._whole_items and not fits_columns(self, data):
                become_whole_items(self)  # e.g. a field the item was not pushed with (mixed_items.py)
            if self._whole_items:
                self._columns.arrays['data'][slots[0] if scalar else slots] = data
            elif scalar:
                self._columns.write_row(int(slots[0]), data)
            else:
                self._columns.write_rows(slots, as_batch(data)[found])
        if meta is not None and len(slots):
            if scalar:
                self._meta.write(slots, meta, 1)
            else:
                meta = {k: (np.asarray(v)[found] if is_per_row(v, len(found)) else v) for k, v in meta.items()}
                self._meta.write(slots, meta, len(slots))
        return bool(found[0]) if scalar else found

    def _delete(self, index: Any) -> None:
        slots, found = self.slots_of(index, strict=False)
        self._drop(np.unique(slots[found]))

    def _drop(self, slots: np.ndarray) -> None:
        """Forget the live rows among `slots`."""
        slots = slots[self._ids[slots] >= 0]
        if len(slots) == 0:
            return
        self._ids[slots] = -1
        self._count -= len(slots)
        self._version += 1
        self._columns.release(slots)
        self._meta.release(slots)

    def _clear(self) -> None:
        self._reset()

    def get(self, i: int) -> BufferedData:
        """The i-th live row, oldest first (negative i counts from the newest)."""
        with self.lock:
            live = self._live_slots()
            if not -len(live) <= i < len(live):
                raise IndexError(f'buffer holds {len(live)} rows; no row {i}')
            return self.gather(live[[i]])[0]

    @property
    def storage(self) -> List[BufferedData]:
        """Every live item, oldest first, as `BufferedData(data, index, meta)`, for reading (with
        PriorityExperienceReplay, `meta['priority']`). A snapshot: changing it changes nothing in the
        buffer (use `update` / `delete`)."""
        from ding.data.buffer.middleware.priority import PriorityExperienceReplay
        with self.lock:
            slots = self._live_slots()
            items = list(self.gather(slots))
            for mw in self.middleware:
                if isinstance(mw, PriorityExperienceReplay):  # each priority goes in the item's meta
                    for item, slot in zip(items, slots.tolist()):
                        item.meta['priority'] = float(mw.priority[slot])
            return items

    @property
    def indices(self) -> Any:
        """`.get(id)` is the item's position in `storage` (di_engine_views.py)."""
        from ding.data.buffer.di_engine_views import item_positions
        with self.lock:
            return item_positions(self)

    @property
    def meta_index(self) -> Dict[str, list]:
        """{meta key: the stored items' values, oldest first} (di_engine_views.py)."""
        from ding.data.buffer.di_engine_views import meta_index
        with self.lock:
            return meta_index(self, self._named_meta_keys)

    @meta_index.setter
    def meta_index(self, value: Dict[str, list]) -> None:
        from ding.data.buffer.di_engine_views import named_meta_keys
        self._named_meta_keys = named_meta_keys(value)

    # --- persistence --------------------------------------------------------------------
    def save_data(self, path: str) -> None:
        """Write rows, ids, metas and middleware state (e.g. priorities) atomically."""
        save_buffer(self, path)

    def load_data(self, path: str) -> None:
        """Restore what `save_data` wrote into a buffer of the same size and middleware."""
        load_buffer(self, path)

    def state_dict(self) -> Dict[str, Any]:
        """The stored rows and bookkeeping (arrays are shared, not copied)."""
        return dict(self._bookkeeping(), columns=None if self._columns is None else self._columns.state_dict(),
                    meta=self._meta.columns, ids=self._ids)

    def rows_state_dict(self) -> Dict[str, Any]:
        """Like `state_dict`, but holding copies of the live rows only: cheap to take under
        the lock (a gather of `count()` rows, not a copy of the preallocated ring) and safe to
        write to disk after releasing it. `load_state_dict` takes either form."""
        slots = self._live_runs()
        return dict(self._bookkeeping(), live_ids=copy_rows(self._ids, slots),
                    columns=None if self._columns is None else self._columns.rows_state_dict(slots),
                    meta={k: copy_rows(col, slots) for k, col in self._meta.columns.items()})

    def _bookkeeping(self) -> Dict[str, Any]:
        return {'size': self.size, 'whole_items': self._whole_items, 'next_id': self._next_id,
                'oldest_id': self._oldest_id, 'count': self._count}

    def _live_runs(self) -> Any:
        """The live slots, oldest first: as one or two slices when there are no holes."""
        first, n = self._window()
        if n != self._count:
            return self._live_slots()
        start = first % self.size
        runs = [slice(start, min(start + n, self.size))]
        if start + n > self.size:  # the window wraps round the end of the ring
            runs.append(slice(0, start + n - self.size))
        return runs

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        if state['size'] != self.size:
            raise ValueError(f'saved buffer has size {state["size"]}; this one has size {self.size}')
        if 'live_ids' in state:
            state = self._expand_rows(state)
        self._reset()
        if state['columns'] is not None:
            self._columns = RingColumns.from_state_dict(self.size, state['columns'])
        self._whole_items = state['whole_items']
        self._meta.columns = state['meta']
        self._ids = state['ids']
        self._next_id, self._oldest_id, self._count = state['next_id'], state['oldest_id'], state['count']

    def _expand_rows(self, state: Dict[str, Any]) -> Dict[str, Any]:
        """A `rows_state_dict` as the full-ring `state_dict` (rows back in slot `id % size`)."""
        live_ids = np.asarray(state['live_ids'], dtype=np.int64)
        slots = live_ids % self.size
        ids = np.full(self.size, -1, dtype=np.int64)
        ids[slots] = live_ids
        meta = {}
        for key, values in state['meta'].items():
            meta[key] = np.full(self.size, None, dtype=object)
            meta[key][slots] = values
        columns = None if state['columns'] is None else \
            RingColumns.from_state_dict(self.size, state['columns'], slots).state_dict()
        return dict(state, columns=columns, meta=meta, ids=ids)
