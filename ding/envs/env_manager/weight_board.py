"""Model weights in shared memory, published by the learner and read by worker processes.

Why: worker-side inference needs each worker's policy copy to follow the learner. Sending
a state_dict down every pipe costs a pickle per worker per update; instead the learner
writes all tensors into one flat shared float32 buffer, guarded by a version counter used
as a sequence lock (odd while a write is under way), and a worker reloads only when the
version moved, before its next rollout.
"""
from collections import OrderedDict
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ding.envs.env_manager.shared_arrays import SharedArrays

Layout = List[Tuple[str, Tuple[int, ...], str, int]]  # (key, shape, dtype, offset)


class WeightBoard:
    """`WeightBoard(state_dict)` in the learner; `WeightBoard.attach(handle)` in a worker."""

    def __init__(self, state_dict: Optional[Mapping[str, Any]] = None, _attach: Optional[tuple] = None) -> None:
        if _attach is not None:
            shm_handle, self.layout = _attach
            self._shm = SharedArrays(*shm_handle)
        else:
            self.layout = _layout(state_dict)
            size = sum(int(np.prod(shape)) for _, shape, _, _ in self.layout)
            self._shm = SharedArrays(dict(flat=((size, ), 'float32'), version=((1, ), 'int64')))
        self._flat, self._version = self._shm['flat'], self._shm['version']
        if _attach is None:
            self.publish(state_dict)

    @classmethod
    def attach(cls, handle: tuple) -> 'WeightBoard':
        return cls(_attach=handle)

    @property
    def handle(self) -> tuple:
        return self._shm.handle, self.layout

    @property
    def version(self) -> int:
        return int(self._version[0])

    def publish(self, state_dict: Mapping[str, Any]) -> int:
        """Write every tensor of `state_dict` (same keys and shapes as at construction)."""
        self._version[0] += 1  # odd: readers wait
        for key, shape, _, offset in self.layout:
            value = state_dict[key]
            value = value.detach().cpu().numpy() if hasattr(value, 'detach') else np.asarray(value)
            self._flat[offset:offset + value.size] = value.reshape(-1)
        self._version[0] += 1
        return self.version

    def read_if_newer(self, seen: int) -> Optional[Tuple[int, Dict[str, Any]]]:
        """(version, state_dict of torch tensors) when a complete version newer than `seen`
        is there; None otherwise."""
        import torch
        while True:
            before = int(self._version[0])
            if before == seen or before % 2:
                return None
            flat = self._flat.copy()
            if int(self._version[0]) == before:
                break
        state = OrderedDict()
        for key, shape, dtype, offset in self.layout:
            size = int(np.prod(shape))
            state[key] = torch.from_numpy(flat[offset:offset + size].reshape(shape).astype(dtype))
        return before, state

    def close(self) -> None:
        self._flat = self._version = None
        self._shm.close()


def _layout(state_dict: Mapping[str, Any]) -> Layout:
    layout, offset = [], 0
    for key, value in state_dict.items():
        arr = value.detach().cpu().numpy() if hasattr(value, 'detach') else np.asarray(value)
        layout.append((key, tuple(arr.shape), arr.dtype.str, offset))
        offset += arr.size
    return layout
