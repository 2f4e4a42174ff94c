"""A `DequeBuffer` holding mixed objects.

Uniform transitions live in columns (the fast path). The first item that does not fit the
column layout (another type, other fields, other row shapes) turns the buffer into one of
objects: every live row becomes a dict in the object column 'data', ids and metas unchanged,
and from then on every item is stored whole. Uniform transitions never come here."""
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

from ding.data.batch import Batch
from ding.data.buffer.meta_columns import meta_of_rows
from ding.data.buffer.ring_columns import RingColumns

if TYPE_CHECKING:
    from ding.data.buffer.deque_buffer import DequeBuffer


def fits_columns(buffer: 'DequeBuffer', data: Any) -> bool:
    """Whether `data` is a row of the buffer's layout: a dict with the same fields (nested alike)."""
    return isinstance(data, Mapping) and buffer._columns.fits_row(data)


def become_whole_items(buffer: 'DequeBuffer') -> None:
    objects = RingColumns.for_row(buffer.size, {'data': None})
    live = buffer._live_slots()
    if len(live):
        column = objects.arrays['data']
        for slot, row in zip(live, buffer._columns.read(live)):
            column[slot] = row.to_dict()
    buffer._columns, buffer._whole_items = objects, True


def push_rows_as_items(buffer: 'DequeBuffer', data: Batch, meta: Optional[dict]) -> list:
    """A Batch that does not fit the layout (or a buffer of objects): its rows go in one by one."""
    return [buffer._push(row.to_dict(), meta_of_rows(meta, len(data), i)) for i, row in enumerate(data)]
