"""Numpy arrays in POSIX shared memory, created by the env manager and attached by workers.

Why: observations, rewards and end flags cross the process boundary every step; writing
them in place into shared arrays costs a memcpy, where pickling through a pipe costs
microseconds per object. Only a one-byte signal per worker and step goes through a pipe.

The creating process owns the segments (and unlinks them in `close`); a worker attaches
by name without registering them with the resource tracker, so a worker exiting, or being
killed, never unlinks memory that the manager still uses.
"""
from contextlib import suppress
from multiprocessing import resource_tracker, shared_memory
from typing import Dict, Mapping, Tuple

import numpy as np

ArraySpec = Dict[str, Tuple[Tuple[int, ...], str]]  # name -> (shape, dtype string)


class SharedArrays:
    """A named set of shared numpy arrays: `arrays['reward'][i] = r` writes in place."""

    def __init__(self, spec: ArraySpec, names: Mapping[str, str] = None) -> None:
        self.spec = {k: (tuple(shape), np.dtype(dtype).str) for k, (shape, dtype) in spec.items()}
        self._owner = names is None
        self._segments: Dict[str, shared_memory.SharedMemory] = {}
        self.arrays: Dict[str, np.ndarray] = {}
        for key, (shape, dtype) in self.spec.items():
            size = max(1, int(np.prod(shape)) * np.dtype(dtype).itemsize)
            seg = shared_memory.SharedMemory(create=True, size=size) if self._owner else _attach_untracked(names[key])
            self._segments[key] = seg
            array = self.arrays[key] = np.ndarray(shape, dtype=dtype, buffer=seg.buf)
            if self._owner:
                array.fill(0)

    @property
    def handle(self) -> Tuple[ArraySpec, Dict[str, str]]:
        """What a worker needs to attach: `SharedArrays(*handle)` (picklable)."""
        return self.spec, {k: seg.name for k, seg in self._segments.items()}

    def __getitem__(self, key: str) -> np.ndarray:
        return self.arrays[key]

    def close(self) -> None:
        """Drop the views, close the mappings and, in the owner, free the memory."""
        self.arrays = {}
        for seg in self._segments.values():
            with suppress(BufferError):  # a view is still alive somewhere; the mapping goes at exit
                seg.close()
            if self._owner:
                with suppress(FileNotFoundError):
                    seg.unlink()
        self._segments = {}


def _attach_untracked(name: str) -> shared_memory.SharedMemory:
    """Python < 3.13 registers attached segments with the resource tracker, which then
    unlinks them when the attaching process exits; suppress that for workers."""
    register = resource_tracker.register
    resource_tracker.register = lambda *args, **kwargs: None
    try:
        return shared_memory.SharedMemory(name=name)
    finally:
        resource_tracker.register = register
