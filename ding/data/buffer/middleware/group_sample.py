"""`group_sample(size_in_group, ordered_in_group, max_use_in_group)`: trim each sampled group.

Used with `sample(size, groupby=key)`. Each group is cut to `size_in_group` items:
ordered -> a run of consecutive items starting at a random position (with
`max_use_in_group`, a start that leaves a full run whenever the group is long enough;
otherwise any start, so runs near the end come out short); unordered -> a random subset.
"""
from typing import Any, Callable

import numpy as np

from ding.data.buffer.sampling import sample_arguments


def group_sample(size_in_group: int, ordered_in_group: bool = True, max_use_in_group: bool = True) -> Callable:
    rng = np.random.default_rng(np.random.randint(2**31))

    def trim(group: Any) -> Any:
        n = len(group)
        if ordered_in_group:
            last_start = max(0, n - size_in_group) if max_use_in_group else n - 1
            start = int(rng.integers(0, last_start + 1))
            return group[start:start + size_in_group]
        if n < size_in_group:
            raise ValueError(f'group of {n} items cannot give {size_in_group} distinct items')
        return group[rng.choice(n, size_in_group, replace=False)]

    def _group_sample(action: str, chain: Callable, *args: Any, **kwargs: Any) -> Any:
        if action != 'sample':
            return chain(*args, **kwargs)
        if not sample_arguments(args, kwargs).get('groupby'):
            raise ValueError('group_sample needs sample(..., groupby=key)')
        return [trim(group) for group in chain(*args, **kwargs)]

    return _group_sample
