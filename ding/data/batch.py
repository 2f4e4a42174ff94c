"""`Batch`: the one data structure that moves through collector, buffer and learner.

A `Batch` is a set of named columns (numpy arrays or torch tensors) that share a leading
dimension. It behaves like a list of transitions, so code written for a
`ctx.trajectories` that is a list of dicts with attribute access keeps working:

    len(b)            -> number of rows
    b[3]              -> a `Row` view: b[3].obs, b[3]['reward']
    for t in b: ...   -> row views
    b[idx_array]      -> a new Batch of the selected rows (one fancy-index per column)
    b.obs, b['obs']   -> the whole column

Columns may be nested Batches (e.g. `obs` of a dict observation space). Rows are views:
nothing is copied until a column is indexed with an array.
"""
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Sequence

import numpy as np
import torch


class Row(Mapping):
    """One row of a Batch: attribute and item access, a view (writes go to the Batch's
    columns). A field the Batch has no column for can be added, as to a sampled
    dict; it lives on this row object only."""
    __slots__ = ('_batch', '_i', '_extra')

    def __init__(self, batch: 'Batch', i: int) -> None:
        object.__setattr__(self, '_batch', batch)
        object.__setattr__(self, '_i', i)
        object.__setattr__(self, '_extra', None)

    def __getitem__(self, key: str) -> Any:
        col = self._batch._cols.get(key)
        if col is not None:
            return col[self._i]
        if self._extra is not None and key in self._extra:
            return self._extra[key]
        raise KeyError(key)

    def __getattr__(self, key: str) -> Any:
        if key in Row.__slots__:  # not set yet (copy, unpickle): no field lookup
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"transition has no field {key!r}; fields: {sorted(self)}") from None

    def __setitem__(self, key: str, value: Any) -> None:
        col = self._batch._cols.get(key)
        if col is not None:
            col[self._i] = value
            return
        if self._extra is None:
            object.__setattr__(self, '_extra', {})
        self._extra[key] = value

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __reduce__(self) -> tuple:  # copy / pickle: the same view, its added fields too
        return _make_row, (self._batch, self._i, self._extra)

    def __iter__(self) -> Iterator[str]:
        yield from self._batch._cols
        if self._extra:
            yield from self._extra

    def __len__(self) -> int:
        return len(self._batch._cols) + len(self._extra or ())

    def to_dict(self) -> Dict[str, Any]:
        return {k: (v.to_dict() if isinstance(v, Row) else v) for k, v in self.items()}

    def __repr__(self) -> str:
        return f'Row({self.to_dict()!r})'


def _make_row(batch: 'Batch', i: int, extra: Any) -> Row:
    row = Row(batch, i)
    if extra:
        object.__setattr__(row, '_extra', dict(extra))
    return row


class Batch:
    """Named columns with a shared leading dimension. See the module docstring."""
    __slots__ = ('_cols', )

    def __init__(self, columns: Mapping[str, Any] = None, **kwargs: Any) -> None:
        cols = dict(columns or {}, **kwargs)
        for k, v in cols.items():
            if isinstance(v, Mapping) and not isinstance(v, Batch):
                cols[k] = Batch(v)
            elif not isinstance(v, (np.ndarray, torch.Tensor, Batch)):
                cols[k] = np.asarray(v)
        object.__setattr__(self, '_cols', cols)
        if cols:
            n = {len(v) for v in cols.values()}
            if len(n) != 1:
                raise ValueError(f'Batch columns differ in length: { {k: len(v) for k, v in cols.items()} }')

    # --- construction -------------------------------------------------------------------
    @classmethod
    def wrap(cls, columns: Dict[str, Any]) -> 'Batch':
        """Adopt `columns` (arrays/tensors/Batches of equal length) without checks: the fast
        path for code that built them itself, e.g. a buffer gathering sampled rows."""
        batch = cls.__new__(cls)
        object.__setattr__(batch, '_cols', columns)
        return batch

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> 'Batch':
        """Stack a list of dict-like transitions (the slow, compatible path)."""
        if len(rows) == 0:
            return cls()
        first = rows[0]
        cols = {}
        for k in first.keys():
            vals = [r[k] for r in rows]
            if isinstance(first[k], Mapping):
                cols[k] = cls.from_rows(vals)
            elif isinstance(first[k], torch.Tensor):
                cols[k] = torch.stack(vals)
            else:
                cols[k] = np.asarray(vals)
        return cls(cols)

    @classmethod
    def cat(cls, batches: Sequence['Batch']) -> 'Batch':
        """Concatenate batches with the same columns along the leading dimension."""
        batches = [b for b in batches if len(b.keys())]
        if not batches:
            return cls()
        return cls({k: cat_column([b._cols[k] for b in batches]) for k in batches[0].keys()})

    # --- list-like access ---------------------------------------------------------------
    def __len__(self) -> int:
        for v in self._cols.values():
            return len(v)
        return 0

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, str):
            return self._cols[idx]
        if isinstance(idx, (int, np.integer)):
            n = len(self)
            if not -n <= idx < n:
                raise IndexError(f'row {idx} out of range for Batch of {n}')
            return Row(self, int(idx) % n)
        return Batch({k: v[idx] for k, v in self._cols.items()})

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, str):
            if self._cols and len(value) != len(self):
                raise ValueError(f'column {key!r} has length {len(value)}, Batch has {len(self)}')
            self._cols[key] = Batch(value) if isinstance(value, Mapping) and not isinstance(value, Batch) else value
        else:
            for k, v in (value._cols if isinstance(value, Batch) else value).items():
                self._cols[k][key] = v

    def __iter__(self) -> Iterator[Row]:
        return (Row(self, i) for i in range(len(self)))

    def __getattr__(self, key: str) -> Any:
        try:
            return self._cols[key]
        except KeyError:
            raise AttributeError(f'Batch has no column {key!r}; columns: {sorted(self._cols)}') from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __contains__(self, key: str) -> bool:
        return key in self._cols

    def __getstate__(self) -> Dict[str, Any]:
        return self._cols

    def __setstate__(self, state: Dict[str, Any]) -> None:
        object.__setattr__(self, '_cols', state)

    def keys(self) -> List[str]:
        return list(self._cols)

    def items(self) -> Iterable:
        return self._cols.items()

    def get(self, key: str, default: Any = None) -> Any:
        return self._cols.get(key, default)

    def pop(self, key: str, *default: Any) -> Any:
        return self._cols.pop(key, *default)

    def __repr__(self) -> str:
        desc = ', '.join(f'{k}: {_describe(v)}' for k, v in self._cols.items())
        return f'Batch[{len(self)}]({desc})'

    # --- conversion ---------------------------------------------------------------------
    def apply(self, fn) -> 'Batch':
        """A new Batch with `fn` applied to every leaf column."""
        return Batch({k: (v.apply(fn) if isinstance(v, Batch) else fn(v)) for k, v in self._cols.items()})

    def to_torch(self, device: Any = 'cpu', dtype_map: Dict[Any, torch.dtype] = None) -> 'Batch':
        """Columns as torch tensors on `device`; float64 becomes float32, bool stays bool."""

        def conv(v: Any) -> Any:
            if isinstance(v, torch.Tensor):
                return v.to(device)
            if v.dtype == np.float64:
                v = v.astype(np.float32)
            if v.dtype == object:
                return v
            return torch.from_numpy(np.ascontiguousarray(v)).to(device)

        return self.apply(conv)

    def copy(self) -> 'Batch':
        """A Batch of copies of every column (as `ndarray.copy()` for a plain array)."""
        return self.apply(lambda v: v.clone() if isinstance(v, torch.Tensor) else v.copy())

    def to_numpy(self) -> 'Batch':
        return self.apply(lambda v: v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v)

    def to_dict(self) -> Dict[str, Any]:
        return {k: (v.to_dict() if isinstance(v, Batch) else v) for k, v in self._cols.items()}


def cat_column(parts: Sequence[Any]) -> Any:
    """One column of several batches along the leading dimension: arrays, tensors or Batches."""
    if isinstance(parts[0], Batch):
        return Batch.cat(parts)
    if isinstance(parts[0], torch.Tensor):
        return torch.cat(list(parts))
    return np.concatenate(parts)


def _describe(v: Any) -> str:
    if isinstance(v, Batch):
        return repr(v)
    return f'{type(v).__name__}{tuple(v.shape)}:{v.dtype}'


def as_batch(data: Any) -> Batch:
    """Accept a Batch, a list of dict-like transitions, or a dict of columns."""
    if isinstance(data, Batch):
        return data
    if isinstance(data, Mapping):
        return Batch(data)
    if isinstance(data, Sequence):
        return Batch.from_rows([d.data if hasattr(d, 'data') and not isinstance(d, Mapping) else d for d in data])
    raise TypeError(f'cannot make a Batch from {type(data).__name__}')
