"""Sampling whole groups of rows (`sample(size, groupby=key, unroll_len=T)`).

Rows are grouped by the value of `groupby`: a top-level data column when there is one
(vectorised: a few numpy calls whatever the buffer size), otherwise the key in each row's
push-time meta. Each sampled group comes back as a `SampledBatch` in push order; with
`unroll_len`, only groups of at least that many rows qualify and each yields a random
window of `unroll_len` consecutive rows (e.g. a sequence for a recurrent learner).
"""
from typing import TYPE_CHECKING, Any, List, Optional

import numpy as np

from ding.data.buffer.buffered_data import SampledBatch
from ding.data.buffer.sampling import InsufficientData, affordable, draw_positions

if TYPE_CHECKING:
    from ding.data.buffer.deque_buffer import DequeBuffer


def sample_groups(buffer: 'DequeBuffer', size: Optional[int], groupby: str, replace: bool,
                  unroll_len: Optional[int], sample_range: Optional[slice],
                  ignore_insufficient: bool) -> List[SampledBatch]:
    if size is None:
        raise ValueError('sample(groupby=...) needs size: the number of groups to draw')
    slots = buffer._live_slots()
    if sample_range is not None:
        slots = slots[sample_range]
    groups = [g for g in _split_by_key(buffer, slots, groupby) if len(g) >= (unroll_len or 1)]
    try:
        size = affordable(size, len(groups), replace, ignore_insufficient)
    except InsufficientData:
        need, how = (1, 'with') if replace else (size, 'without')
        long_enough = f' of at least {unroll_len} rows' if unroll_len else ''
        raise InsufficientData(f'There are less than {need} groups by {groupby!r}{long_enough} (there are '
                               f'{len(groups)}) to sample {size} {how} replacement; pass ignore_insufficient=True '
                               'to get fewer') from None
    if size == 0:
        return []
    rng = buffer.rng
    picked = draw_positions(rng, len(groups), size, replace)
    out = []
    for g in picked:
        members = groups[g]
        if unroll_len:
            start = _window_start(rng, len(members), unroll_len, getattr(buffer, 'sliced', False))
            members = members[start:start + unroll_len]
        out.append(buffer.gather(members))
    return out


def _window_start(rng: np.random.Generator, n: int, unroll_len: int, sliced: bool) -> int:
    """Start of a window of `unroll_len` rows in a group of `n`: any start, or (`sliced`) a
    multiple of unroll_len, the group's last full window standing in for its ragged tail."""
    if not sliced:
        return int(rng.integers(0, n - unroll_len + 1))
    chunk = int(rng.integers(0, n)) // unroll_len
    return n - unroll_len if chunk == (n - 1) // unroll_len else chunk * unroll_len


def _split_by_key(buffer: 'DequeBuffer', slots: np.ndarray, groupby: str) -> List[np.ndarray]:
    """Slots grouped by key value (groups in key order for numeric keys), each in push order."""
    keys = _keys(buffer, slots, groupby)
    if isinstance(keys, np.ndarray) and keys.dtype != object and keys.ndim == 1:
        _, inverse = np.unique(keys, return_inverse=True)
        order = np.argsort(inverse, kind='stable')
        bounds = np.cumsum(np.bincount(inverse))[:-1]
        return np.split(slots[order], bounds) if len(slots) else []
    grouped = {}
    for slot, key in zip(slots, keys):
        if key is not None:  # rows pushed without this meta key belong to no group
            grouped.setdefault(_hashable(key), []).append(slot)
    return [np.asarray(v, dtype=np.int64) for v in grouped.values()]


def _keys(buffer: 'DequeBuffer', slots: np.ndarray, groupby: str) -> Any:
    columns = buffer._columns
    if columns is not None and not buffer._whole_items and groupby in columns.arrays:
        return columns.leaf(groupby)[slots]
    meta = buffer._meta.columns.get(groupby)
    if meta is None:
        raise KeyError(f'cannot group by {groupby!r}: it is neither a column nor a push-time meta key')
    keys = meta[slots]
    try:  # numeric keys (e.g. env ids) group in a few numpy calls
        as_numbers = np.asarray(keys.tolist())
        return as_numbers if as_numbers.dtype.kind in 'biuf' else keys
    except ValueError:
        return keys


def _hashable(key: Any) -> Any:
    if isinstance(key, np.ndarray):
        return key.tobytes()
    try:
        hash(key)
        return key
    except TypeError:
        return repr(key)
