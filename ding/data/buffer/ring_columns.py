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
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import torch

from ding.data.batch import Batch

# Python scalars get compact dtypes: transitions store float32 rewards, not float64.
_SCALAR_DTYPES = {bool: np.bool_, int: np.int64, float: np.float32}


def _row_layout(value: Any) -> Tuple[tuple, Any, bool]:
    """(row shape, dtype, is_torch) of a column whose first row is `value`; dtype object when it is not numeric."""
    is_torch = isinstance(value, torch.Tensor)
    if is_torch:
        value = value.detach().cpu().numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        return value.shape, value.dtype, is_torch
    return (), _SCALAR_DTYPES.get(type(value), object), False


def _empty_ring(capacity: int, row_shape: tuple, dtype: Any) -> np.ndarray:
    """`capacity` rows of a column: None for an object column, else zeros."""
    if dtype == object:
        return np.full(capacity, None, dtype=object)
    return np.zeros((capacity, ) + tuple(row_shape), dtype=dtype)


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
            row_shape, dtype, is_torch = _row_layout(value)
            cols.arrays[name] = _empty_ring(capacity, row_shape, dtype)
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
            cols.arrays[name] = _empty_ring(capacity, col.shape[1:], col.dtype)
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

    # --- persistence --------------------------------------------------------------------
    def state_dict(self) -> Dict[str, Any]:
        return {
            'arrays': {k: (v.state_dict() if isinstance(v, RingColumns) else v) for k, v in self.arrays.items()},
            'torch_columns': sorted(self.torch_columns),
        }

    @classmethod
    def from_state_dict(cls, capacity: int, state: Dict[str, Any], slots: Optional[np.ndarray] = None) -> 'RingColumns':
        """The ring of a `state_dict`, or with `slots`, a ring of `capacity` rows holding the rows
        of a `rows_state_dict` back at `slots`."""
        cols = cls(capacity)
        for k, v in state['arrays'].items():
            if isinstance(v, dict):
                cols.arrays[k] = cls.from_state_dict(capacity, v, slots)
            elif slots is None:
                cols.arrays[k] = v
            else:
                v = np.asarray(v)
                cols.arrays[k] = _empty_ring(capacity, v.shape[1:], v.dtype)
                cols.arrays[k][slots] = v
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
