"""`use_time_check(buffer, max_use)`: delete a row once it has been sampled `max_use` times.

Use counts are kept per buffer slot in one array, so checking a sample of any size is a
few numpy calls. Each sampled item's meta gets its `use_count` (counted after this sample).
"""
from typing import Any, Callable, Dict

import numpy as np


class UseTimeCheck:

    def __init__(self, buffer: Any, max_use: float = float('inf')) -> None:
        if max_use < 1:
            raise ValueError(f'max_use must be >= 1, got {max_use}')
        self.buffer = buffer
        self.max_use = max_use
        self.use_count = np.zeros(buffer.size, dtype=np.int64)

    def __call__(self, action: str, chain: Callable, *args: Any, **kwargs: Any) -> Any:
        if action == 'push':
            pushed = chain(*args, **kwargs)
            self.use_count[np.atleast_1d(pushed.index) % self.buffer.size] = 0
            return pushed
        if action == 'sample':
            sampled = chain(*args, **kwargs)
            for group in (sampled if isinstance(sampled, list) else [sampled]):
                self._count_use(group)
            return sampled
        return chain(*args, **kwargs)

    def _count_use(self, sampled: Any) -> None:
        slots = sampled.index % self.buffer.size
        np.add.at(self.use_count, slots, 1)
        counts = self.use_count[slots]
        sampled.meta['use_count'] = counts
        used_up = np.unique(sampled.index[counts >= self.max_use])
        if len(used_up):
            self.buffer.delete(used_up)

    def state_dict(self) -> Dict[str, Any]:
        return {'use_count': self.use_count.copy()}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.use_count[:] = state['use_count']


def use_time_check(buffer_: Any, max_use: float = float('inf')) -> UseTimeCheck:
    return UseTimeCheck(buffer_, max_use)
