"""`RingColumns`: one preallocated array per column, `capacity` rows each.

The layout (names, dtypes, row shapes, nesting) is taken from the first data pushed; later
pushes must match it. Numeric values live in numpy arrays; anything else (lists, strings,
None, whole episodes) lives in an object column. A column first pushed as a torch tensor
is stored as numpy and handed back as a tensor (`torch.from_numpy`, no copy).

Memory is taken with `np.zeros`, so the operating system commits pages only as rows are
written: an empty 1M-row buffer costs almost nothing.
"""
import copy
from collections.abc import Mapping
from typing import Any, Dict, List, Union

import numpy as np
import torch

from ding.data.batch import Batch

# Python scalars get compact dtypes: transitions store float32 rewards, not float64.
_SCALAR_DTYPES = {bool: np.bool_, int: np.int64, float: np.float32}


def _row_template(value: Any):
    """(example row as ndarray, is_torch) for a numeric value, or None for an object column."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy(), True
    if isinstance(value, np.ndarray):
        return (value, False) if value.dtype != object else None
    if isinstance(value, np.generic):
        return np.asarray(value), False
    if type(value) in _SCALAR_DTYPES:
        return np.asarray(value, dtype=_SCALAR_DTYPES[type(value)]), False
    return None


def copy_rows(arr: np.ndarray, slots: Union[np.ndarray, List[slice]]) -> np.ndarray:
    """A copy of `arr`'s rows at `slots` (an index array, or a list of slices in order)."""
    if isinstance(slots, list):
        return np.concatenate([arr[s] for s in slots]) if len(slots) > 1 else arr[slots[0]].copy()
    return arr.take(slots, axis=0)


class RingColumns:
    """Column arrays of `capacity` rows; `write_*` put rows in slots, `read` gathers slots."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.arrays: Dict[str, Union[np.ndarray, 'RingColumns']] = {}
        self.torch_columns = set()

    # --- construction -------------------------------------------------------------------
    @classmethod
    def for_row(cls, capacity: int, row: Mapping) -> 'RingColumns':
        """Layout from one dict-like row."""
        cols = cls(capacity)
        for name, value in row.items():
            if isinstance(value, Mapping):
                cols.arrays[name] = cls.for_row(capacity, value)
                continue
            template = _row_template(value)
            if template is None:
                cols.arrays[name] = np.full(capacity, None, dtype=object)
            else:
                example, is_torch = template
                cols.arrays[name] = np.zeros((capacity, ) + example.shape, dtype=example.dtype)
                if is_torch:
                    cols.torch_columns.add(name)
        return cols

    @classmethod
    def for_batch(cls, capacity: int, batch: Batch) -> 'RingColumns':
        """Layout from a Batch's columns (row shape = column shape without the leading dim)."""
        cols = cls(capacity)
        for name, col in batch.items():
            if isinstance(col, Batch):
                cols.arrays[name] = cls.for_batch(capacity, col)
                continue
            if isinstance(col, torch.Tensor):
                cols.torch_columns.add(name)
                col = col.detach().cpu().numpy()
            if col.dtype == object:
                cols.arrays[name] = np.full(capacity, None, dtype=object)
            else:
                cols.arrays[name] = np.zeros((capacity, ) + col.shape[1:], dtype=col.dtype)
        return cols

    # --- writing ------------------------------------------------------------------------
    def write_rows(self, slots: Union[slice, np.ndarray], batch: Batch) -> None:
        """Copy all rows of `batch` into `slots` (a slice is fastest), one copy per column."""
        self._check_keys(batch.keys())
        for name, arr in self.arrays.items():
            value = batch[name]
            if isinstance(arr, RingColumns):
                arr.write_rows(slots, value if isinstance(value, Batch) else Batch(value))
                continue
            if isinstance(value, torch.Tensor):
                value = value.detach().cpu().numpy()
            arr[slots] = value

    def write_row(self, slot: int, row: Mapping) -> None:
        """Copy one dict-like row into `slot`."""
        self._check_keys(row.keys())
        for name, arr in self.arrays.items():
            value = row[name]
            if isinstance(arr, RingColumns):
                arr.write_row(slot, value)
            elif isinstance(value, torch.Tensor):
                arr[slot] = value.detach().cpu().numpy()
            else:
                arr[slot] = value

    def release(self, slots: np.ndarray) -> None:
        """Drop references held by object columns at `slots` (deleted rows)."""
        for arr in self.arrays.values():
            if isinstance(arr, RingColumns):
                arr.release(slots)
            elif arr.dtype == object:
                arr[slots] = None

    def fits_row(self, row: Mapping) -> bool:
        """Whether `row` has exactly these fields, numeric ones of the stored row shape (nested alike)."""
        if len(row) != len(self.arrays) or any(k not in self.arrays for k in row):
            return False
        for name, arr in self.arrays.items():
            value = row[name]
            if isinstance(arr, RingColumns):
                if not (isinstance(value, Mapping) and arr.fits_row(value)):
                    return False
            elif arr.dtype != object and tuple(getattr(value, 'shape', np.shape(value))) != arr.shape[1:]:
                return False
        return True

    def _check_keys(self, keys: Any) -> None:
        if len(keys) != len(self.arrays) or any(k not in self.arrays for k in keys):
            got, want = sorted(keys), sorted(self.arrays)
            raise ValueError(f'pushed data has fields {got}, but the buffer stores {want} '
                             f'(its layout is fixed by the first push; clear() to change it)')

    # --- reading ------------------------------------------------------------------------
    def read(self, slots: np.ndarray) -> Batch:
        """A Batch of copies of the rows at `slots` (`take` is several times faster than
        fancy indexing for multi-dimensional columns)."""
        cols = {}
        for name, arr in self.arrays.items():
            if isinstance(arr, RingColumns):
                cols[name] = arr.read(slots)
            elif name in self.torch_columns:
                cols[name] = torch.from_numpy(arr.take(slots, axis=0))
            else:
                cols[name] = arr.take(slots, axis=0)
        return Batch.wrap(cols)

    def leaf(self, name: str) -> np.ndarray:
        """The raw ring array of a top-level column (KeyError if absent or nested)."""
        arr = self.arrays[name]
        if isinstance(arr, RingColumns):
            raise KeyError(name)
        return arr

    def nbytes(self) -> int:
        return sum(a.nbytes() if isinstance(a, RingColumns) else a.nbytes for a in self.arrays.values())

    # --- persistence --------------------------------------------------------------------
    def state_dict(self) -> Dict[str, Any]:
        return {
            'arrays': {k: (v.state_dict() if isinstance(v, RingColumns) else v) for k, v in self.arrays.items()},
            'torch_columns': sorted(self.torch_columns),
        }

    @classmethod
    def from_state_dict(cls, capacity: int, state: Dict[str, Any]) -> 'RingColumns':
        cols = cls(capacity)
        for k, v in state['arrays'].items():
            cols.arrays[k] = cls.from_state_dict(capacity, v) if isinstance(v, dict) else v
        cols.torch_columns = set(state['torch_columns'])
        return cols

    def rows_state_dict(self, slots: Union[np.ndarray, List[slice]]) -> Dict[str, Any]:
        """`state_dict` holding copies of the rows at `slots` only (`len(slots)` rows per
        column, not `capacity`): what a checkpoint needs of a partly filled ring. `slots` may
        be a list of slices (contiguous runs copy several times faster than a gather).
        Objects are deep-copied, so the copy stays valid once the buffer lock is released."""
        arrays = {}
        for k, v in self.arrays.items():
            if isinstance(v, RingColumns):
                arrays[k] = v.rows_state_dict(slots)
            elif v.dtype == object:
                arrays[k] = copy.deepcopy(copy_rows(v, slots))
            else:
                arrays[k] = copy_rows(v, slots)
        return {'arrays': arrays, 'torch_columns': sorted(self.torch_columns)}

    @classmethod
    def from_rows_state_dict(cls, capacity: int, state: Dict[str, Any], slots: np.ndarray) -> 'RingColumns':
        """A ring of `capacity` rows holding the rows of `rows_state_dict` back at `slots`."""
        cols = cls(capacity)
        for k, v in state['arrays'].items():
            if isinstance(v, dict):
                cols.arrays[k] = cls.from_rows_state_dict(capacity, v, slots)
                continue
            v = np.asarray(v)
            ring = np.full(capacity, None, dtype=object) if v.dtype == object else \
                np.zeros((capacity, ) + v.shape[1:], dtype=v.dtype)
            ring[slots] = v
            cols.arrays[k] = ring
        cols.torch_columns = set(state['torch_columns'])
        return cols
