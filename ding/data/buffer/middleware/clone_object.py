"""`clone_object()`: the buffer and its callers never share mutable objects.

Numeric columns are copied anyway (into the ring arrays on push, by fancy indexing on
sample); what can still be shared are objects: whole items (e.g. episode lists) and
object columns. This middleware deep-copies those on the way in and on the way out.
"""
import copy
from typing import Any, Callable

import numpy as np

from ding.data.batch import Batch


def _clone_objects(batch: Batch) -> Batch:
    cols = {}
    for k, v in batch.items():
        if isinstance(v, Batch):
            cols[k] = _clone_objects(v)
        elif isinstance(v, np.ndarray) and v.dtype == object:
            cols[k] = copy.deepcopy(v)
        else:
            cols[k] = v
    return Batch(cols)


def clone_object() -> Callable:

    def _clone_object(action: str, chain: Callable, *args: Any, **kwargs: Any) -> Any:
        if action == 'push':
            data, rest = args[0], args[1:]
            data = _clone_objects(data) if isinstance(data, Batch) else copy.deepcopy(data)
            return chain(data, *rest, **kwargs)
        if action == 'sample':
            sampled = chain(*args, **kwargs)
            for group in (sampled if isinstance(sampled, list) else [sampled]):
                group.batch = _clone_objects(group.batch)
            return sampled
        return chain(*args, **kwargs)

    return _clone_object
