"""`FrameStore`: a ring of uint8 frames addressed by ids that count up over its life (frame
`id` lives at `id % capacity`), and the lossless uint8 coding of pixel observations.

Pixel observations reach the buffer either as uint8 or as float32 in [0, 1] (from
`ScaledFloatFrameWrapper`: each value is k / 255). Both are kept as uint8; float ones are
handed back as float32 k / 255 again, bit for bit. A float observation that is not on that
grid cannot be stored without loss, so it is an error rather than a silent rounding.
"""
from typing import Any, Dict, Tuple

import numpy as np

_SCALE = np.float32(255)


def to_uint8(obs: np.ndarray, what: str) -> np.ndarray:
    """`obs` as uint8: itself when it is uint8, else float k / 255 coded as k, checked exact."""
    if obs.dtype == np.uint8:
        return obs
    if obs.dtype.kind != 'f':
        raise TypeError(f'FrameBuffer stores pixel observations as uint8; {what} has dtype {obs.dtype}')
    with np.errstate(invalid='ignore', over='ignore'):  # NaN / out-of-range values fail the check below
        coded = np.rint(obs * _SCALE).astype(np.uint8)
    if not np.array_equal(from_uint8(coded, True), obs):
        raise ValueError(f'FrameBuffer stores pixel observations as uint8: float {what} must be multiples of 1/255 '
                         f'in [0, 1] (ScaledFloatFrameWrapper\'s output); got values in [{np.nanmin(obs)}, '
                         f'{np.nanmax(obs)}] that are not')
    return coded


def from_uint8(frames: np.ndarray, scaled: bool) -> np.ndarray:
    """The observations as pushed: uint8, or float32 k / 255 when they came as floats."""
    return frames.astype(np.float32) / _SCALE if scaled else frames


class FrameStore:
    """`capacity` frames of one shape; `append` returns the new frames' ids, `read` gathers."""

    def __init__(self, capacity: int, frame_shape: Tuple[int, ...]) -> None:
        self.capacity = int(capacity)
        self.frame_shape = tuple(frame_shape)
        # np.zeros: pages are committed as frames are written, so an unfilled store costs little
        self.frames = np.zeros((self.capacity, ) + self.frame_shape, dtype=np.uint8)
        self.next_id = 0

    def append(self, frames: np.ndarray) -> np.ndarray:
        """Write `frames` [m, *frame_shape] (m <= capacity), overwriting the oldest; their ids."""
        m = len(frames)
        if m > self.capacity:
            raise ValueError(f'{m} frames do not fit a frame store of {self.capacity}')
        start = self.next_id % self.capacity
        split = min(m, self.capacity - start)
        self.frames[start:start + split] = frames[:split]
        self.frames[:m - split] = frames[split:]
        ids = np.arange(self.next_id, self.next_id + m, dtype=np.int64)
        self.next_id += m
        return ids

    def read(self, ids: np.ndarray) -> np.ndarray:
        """Frames [*ids.shape, *frame_shape] of `ids` (ids that are still stored)."""
        return self.frames.take(np.asarray(ids) % self.capacity, axis=0)

    def oldest_kept(self, extra: int = 0) -> int:
        """The smallest id still stored after `extra` more frames are appended."""
        return max(0, self.next_id + extra - self.capacity)

    def state_dict(self) -> Dict[str, Any]:
        return {'capacity': self.capacity, 'frame_shape': self.frame_shape, 'frames': self.frames,
                'next_id': self.next_id}

    def rows_state_dict(self) -> Dict[str, Any]:
        """Like `state_dict` with a copy of the frames written so far (not the whole ring)."""
        return dict(self.state_dict(), frames=self.frames[:min(self.next_id, self.capacity)].copy())

    @classmethod
    def from_state_dict(cls, state: Dict[str, Any]) -> 'FrameStore':
        store = cls(state['capacity'], state['frame_shape'])
        store.next_id, frames = state['next_id'], state['frames']
        if len(frames) == store.capacity:
            store.frames = frames
        else:
            store.frames[:len(frames)] = frames
        return store
