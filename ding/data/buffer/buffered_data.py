"""What a buffer hands back: `BufferedData` (one item) and `SampledBatch` (a sample).

A learner wants the sampled columns as one `Batch`; code that iterates a sample wants a list of
`BufferedData(data, index, meta)`. `SampledBatch` is both: `.batch` is built by one
fancy-index per column, and the `BufferedData` views are made only when someone indexes
or iterates it, so the fast path pays nothing for the list.
"""
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional

import numpy as np

from ding.data.batch import Batch
from ding.data.buffer.meta_columns import row_meta_dict


@dataclass
class BufferedData:
    """One stored item: its data, its buffer id (an int) and its meta dict."""
    data: Any
    index: int
    meta: Dict[str, Any] = field(default_factory=dict)


class SampledBatch(Sequence):
    """Sampled rows: `.batch` (Batch of columns), `.index` (np.int64 ids), `.meta` (dict of
    per-row arrays added by middleware, e.g. PER's `priority_IS`); list-like of BufferedData.

    `meta_columns` holds the meta given at push time (`{key: object array}`, or None when
    no item had any); `row_meta` shows it as one dict per item. `whole_items` says the
    buffer stores whole objects (e.g. episodes), so an item's `data` is the object itself
    rather than a row view.
    """

    def __init__(self, batch: Batch, index: np.ndarray, meta: Optional[Dict[str, Any]] = None,
                 meta_columns: Optional[Dict[str, np.ndarray]] = None, whole_items: bool = False) -> None:
        self.batch = batch
        self.index = index
        self.meta = {} if meta is None else meta
        self.meta_columns = meta_columns
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
        idx = np.arange(len(self))[idx]  # slices, boolean masks and index arrays alike
        meta = {k: (v[idx] if _per_row(v, len(self)) else v) for k, v in self.meta.items()}
        columns = None if self.meta_columns is None else {k: v[idx] for k, v in self.meta_columns.items()}
        return SampledBatch(self.batch[idx], self.index[idx], meta, columns, self.whole_items)

    @property
    def row_meta(self) -> Optional[List[Dict[str, Any]]]:
        """Push-time meta as one dict per item (None when no item had any)."""
        if self.meta_columns is None:
            return None
        return [row_meta_dict(self.meta_columns, i) for i in range(len(self))]

    def _make_item(self, i: int) -> BufferedData:
        data = self.batch['data'][i] if self.whole_items else self.batch[i]
        meta = row_meta_dict(self.meta_columns, i)
        for k, v in self.meta.items():
            meta[k] = v[i] if _per_row(v, len(self)) else v
        return BufferedData(data, int(self.index[i]), meta)

    def __repr__(self) -> str:
        return f'SampledBatch[{len(self)}](index={self.index.tolist()}, batch={self.batch!r})'


def _per_row(value: Any, n: int) -> bool:
    return hasattr(value, '__len__') and not isinstance(value, (str, bytes, dict)) and len(value) == n
