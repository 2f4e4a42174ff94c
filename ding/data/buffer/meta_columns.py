"""`MetaColumns`: the meta dicts given at push time, stored as one object array per key.

Storing meta by key rather than as a dict per row keeps a Batch push with per-row meta
(e.g. `meta={'env': env_ids}`) free of Python loops, and lets `sample(groupby='env')`
read the whole key at once. A key absent from a push is None for those rows; a row's meta
dict is rebuilt from its non-None entries.
"""
from typing import Any, Dict, Optional

import numpy as np


def is_per_row(value: Any, n: int) -> bool:
    """A Batch push's meta value with one entry per row (else it is shared by all rows)."""
    return isinstance(value, (np.ndarray, list, tuple)) and len(value) == n


def meta_of_rows(meta: Optional[dict], n: int, rows: Any) -> Optional[dict]:
    """The meta of `rows` (a position or a slice) of a Batch push of `n` rows with `meta`."""
    if meta is None:
        return None
    return {k: (v[rows] if is_per_row(v, n) else v) for k, v in meta.items()}


class MetaColumns:

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.columns: Dict[str, np.ndarray] = {}

    def write(self, slots: Any, meta: Optional[dict], n: int) -> None:
        """Set the meta of `n` rows at `slots`; with n == 1 each value is stored whole."""
        if not meta and not self.columns:
            return
        meta = meta or {}
        for key in meta:
            if key not in self.columns:
                self.columns[key] = np.full(self.capacity, None, dtype=object)
        for key, col in self.columns.items():
            if key not in meta:
                col[slots] = None
            elif n == 1:
                col[slots.start if isinstance(slots, slice) else int(np.asarray(slots)[0])] = meta[key]
            elif is_per_row(meta[key], n):
                col[slots] = meta[key]
            else:
                shared = np.empty(n, dtype=object)
                shared.fill(meta[key])
                col[slots] = shared

    def release(self, slots: Any) -> None:
        for col in self.columns.values():
            col[slots] = None

    def read(self, slots: np.ndarray) -> Optional[Dict[str, np.ndarray]]:
        """{key: object array of the rows at `slots`}, or None when no meta was ever given."""
        if not self.columns:
            return None
        return {key: col.take(slots) for key, col in self.columns.items()}


def row_meta_dict(columns: Optional[Dict[str, np.ndarray]], i: int) -> Dict[str, Any]:
    """The meta dict of row i of a `MetaColumns.read` result."""
    if not columns:
        return {}
    return {key: col[i] for key, col in columns.items() if col[i] is not None}
