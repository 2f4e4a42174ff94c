"""`padding(policy='random')`: after a grouped sample (`sample(n, groupby=key)`), bring every
group to the length of the longest: with copies of random items of the
same group ('random') or with empty `BufferedData(None, None, None)` ('none'). Groups come
back as lists of `BufferedData`; an ungrouped sample passes unchanged."""
import copy
import random
from typing import Any, Callable

from ding.data.buffer.buffered_data import BufferedData, SampledBatch


def padding(policy: str = 'random') -> Callable:
    if policy not in ('random', 'none'):
        raise ValueError(f"padding policy must be 'random' or 'none', got {policy!r}")

    def pad(groups: Any) -> Any:
        if len(groups) == 0 or isinstance(groups, SampledBatch) or isinstance(groups[0], BufferedData):
            return groups
        groups = [list(g) for g in groups]
        longest = max(len(g) for g in groups)
        for group in groups:
            for _ in range(longest - len(group)):
                if policy == 'random':
                    item = random.choice(group)
                    group.append(BufferedData(copy.copy(item.data), item.index, dict(item.meta)))
                else:
                    group.append(BufferedData(None, None, None))
        return groups

    def _padding(action: str, chain: Callable, *args: Any, **kwargs: Any) -> Any:
        result = chain(*args, **kwargs)
        return pad(result) if action == 'sample' else result

    return _padding
