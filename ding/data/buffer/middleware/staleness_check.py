"""`staleness_check(buffer_, max_staleness=inf)`: drop data collected too many train
iterations ago.

Every push must carry `meta={'train_iter_data_collected': train_iter}`; every sample names
the learner's iteration, `buffer_.sample(size, train_iter_sample_data=train_iter)`. Before
sampling, each stored item's meta gets `staleness = train_iter_sample_data -
train_iter_data_collected`, and items staler than `max_staleness` are deleted."""
from typing import Any, Callable

import numpy as np

KEY = 'train_iter_data_collected'


class MissingStalenessMeta(ValueError, AssertionError):
    """A push without `train_iter_data_collected` in its meta. A ValueError (bad input), and
    an AssertionError too, for callers that catch an assertion failure there."""


def staleness_check(buffer_: Any, max_staleness: float = float('inf')) -> Callable:

    def push(chain: Callable, data: Any, meta: Any = None) -> Any:
        if not meta or KEY not in meta:
            raise MissingStalenessMeta(f"staleness_check: push data with meta={{'{KEY}': <train_iter>}}")
        return chain(data, meta)

    def sample(chain: Callable, *args: Any, train_iter_sample_data: int = None, **kwargs: Any) -> Any:
        if train_iter_sample_data is None:
            raise ValueError('staleness_check: sample(..., train_iter_sample_data=<train_iter>)')
        slots = buffer_._live_slots()
        if len(slots):
            ids = buffer_.ids_at(slots)
            meta = buffer_._meta.columns  # push-time meta by key; `staleness` is added beside the rest
            staleness = train_iter_sample_data - np.asarray(meta[KEY][slots].tolist())
            if 'staleness' not in meta:
                meta['staleness'] = np.full(buffer_.size, None, dtype=object)
            meta['staleness'][slots] = np.array(staleness.tolist() + [None], dtype=object)[:-1]
            stale = ids[staleness > max_staleness]
            if len(stale):
                buffer_.delete(stale)
        return chain(*args, **kwargs)

    def _staleness_check(action: str, chain: Callable, *args: Any, **kwargs: Any) -> Any:
        if action == 'push':
            return push(chain, *args, **kwargs)
        if action == 'sample':
            return sample(chain, *args, **kwargs)
        return chain(*args, **kwargs)

    return _staleness_check
