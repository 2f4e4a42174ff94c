"""What a buffer hands back: `BufferedData` (one item) and `SampledBatch` (a sample).

A learner wants the sampled columns as one `Batch`; DI-engine code wants a list of
`BufferedData(data, index, meta)`. `SampledBatch` is both: `.batch` is built by one
fancy-index per column, and the `BufferedData` views are made only when someone indexes
or iterates it, so the fast path pays nothing for the compatible one.
"""
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, Optional

import numpy as np

from ding.data.batch import Batch


@dataclass
class BufferedData:
    """One stored item: its data, its buffer id (an int) and its meta dict."""
    data: Any
    index: int
    meta: Dict[str, Any] = field(default_factory=dict)


class SampledBatch(Sequence):
    """Sampled rows: `.batch` (Batch of columns), `.index` (np.int64 ids), `.meta` (dict of
    per-row arrays added by middleware, e.g. PER's `priority_IS`); list-like of BufferedData.

    `row_meta` holds the meta dicts given at push time (object array, or None when no item
    had any). `whole_items` says the buffer stores whole objects (e.g. episodes), so an
    item's `data` is the object itself rather than a row view.
    """

    def __init__(self, batch: Batch, index: np.ndarray, meta: Optional[Dict[str, Any]] = None,
                 row_meta: Optional[np.ndarray] = None, whole_items: bool = False) -> None:
        self.batch = batch
        self.index = index
        self.meta = {} if meta is None else meta
        self.row_meta = row_meta
        self.whole_items = whole_items
        self._items: Dict[int, BufferedData] = {}

    def __len__(self) -> int:
        return len(self.index)

    def __iter__(self) -> Iterator[BufferedData]:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, (int, np.integer)):
            n = len(self)
            if not -n <= i < n:
                raise IndexError(f'item {i} out of range for a sample of {n}')
            i = int(i) % n
            if i not in self._items:
                self._items[i] = self._make_item(i)
            return self._items[i]
        return self.subset(i)

    def subset(self, idx: Any) -> 'SampledBatch':
        """The items at `idx` (slice or index array) as a new SampledBatch."""
        if isinstance(idx, slice):
            idx = np.arange(len(self))[idx]
        idx = np.asarray(idx, dtype=np.int64)
        meta = {k: (v[idx] if _per_row(v, len(self)) else v) for k, v in self.meta.items()}
        row_meta = None if self.row_meta is None else self.row_meta[idx]
        return SampledBatch(self.batch[idx], self.index[idx], meta, row_meta, self.whole_items)

    def _make_item(self, i: int) -> BufferedData:
        data = self.batch['data'][i] if self.whole_items else self.batch[i]
        meta = {}
        if self.row_meta is not None and self.row_meta[i] is not None:
            meta.update(self.row_meta[i])
        for k, v in self.meta.items():
            meta[k] = v[i] if _per_row(v, len(self)) else v
        return BufferedData(data, int(self.index[i]), meta)

    def __repr__(self) -> str:
        return f'SampledBatch[{len(self)}](index={self.index.tolist()}, batch={self.batch!r})'


def _per_row(value: Any, n: int) -> bool:
    return hasattr(value, '__len__') and not isinstance(value, (str, bytes, dict)) and len(value) == n
