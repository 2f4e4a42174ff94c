"""DI-engine's bookkeeping attributes of `DequeBuffer`, derived from our columns when read:

- `indices`: where each stored item's id sits among the stored items, oldest first
  (`buffer.indices.get(item.index) == i` for `buffer.storage[i]`);
- `meta_index`: for each meta key, its value in every stored item's meta, oldest first (None
  where an item's meta lacks the key).

DI-engine keeps both up to date on every push; ding stores ids and metas as arrays
(deque_buffer.py, meta_columns.py) and builds these views only for code that asks.
"""
from typing import TYPE_CHECKING, Any, Dict, List

import numpy as np

if TYPE_CHECKING:
    from ding.data.buffer.deque_buffer import DequeBuffer


class ItemPositions:
    """Read-only `{id: position}` over the stored ids (increasing, as they are given out)."""

    def __init__(self, ids: np.ndarray) -> None:
        self._ids = ids

    def _position(self, index: Any) -> int:
        try:
            i = int(np.searchsorted(self._ids, int(index)))
        except (TypeError, ValueError):
            return -1
        return i if i < len(self._ids) and self._ids[i] == int(index) else -1

    def get(self, index: Any) -> int:
        position = self._position(index)
        if position < 0:
            raise KeyError(f'no stored item has index {index!r}')
        return position

    def has(self, index: Any) -> bool:
        return self._position(index) >= 0

    __contains__ = has

    def __len__(self) -> int:
        return len(self._ids)


def item_positions(buffer: 'DequeBuffer') -> ItemPositions:
    return ItemPositions(buffer.ids_at(buffer._live_slots()).copy())


def meta_index(buffer: 'DequeBuffer', named: List[str]) -> Dict[str, list]:
    """Every meta key the stored items carry, plus the `named` ones (DI-engine's preset keys)."""
    slots = buffer._live_slots()
    columns = buffer._meta.columns
    keys = list(columns) + [k for k in named if k not in columns]
    return {k: columns[k][slots].tolist() if k in columns else [None] * len(slots) for k in keys}


def named_meta_keys(value: Any) -> List[str]:
    """The keys of an assignment `buffer.meta_index = {key: []}` (DI-engine's way to ask for an
    index by key). The values are the buffer's to derive: a non-empty one is refused."""
    if not isinstance(value, dict) or any(len(v) for v in value.values()):
        raise ValueError('buffer.meta_index is derived from the stored metas: assign only {key: []} to name '
                         f'keys to index (every meta key is indexed anyway), got {value!r}')
    return list(value)
