"""`FrameBuffer(size)` (`replay_buffer.type='frame'`): a `DequeBuffer` for pixel observations
that stores each frame once, as uint8.

A transition of a frame-stacked env holds `obs` [k, H, W] and `next_obs` [k, H, W]: 2k frames,
of which only one is new (next_obs is obs shifted by one frame, and obs is the previous
transition's next_obs). Like rlpyt's frame buffer and SB3's `optimize_memory_usage`, this
buffer keeps the frames in one uint8 ring (`FrameStore`) and each row holds only the ids of
its 2k frames, so a transition costs about one frame (84x84: 7 KB) instead of 2k frames
(56 KB as uint8, 226 KB as float32).

Sharing is decided per env (`env_id` column; rows without one form one stream) by time step
and checked by content (frame_tracks.py): a row's obs is looked up at the step after the
env's previous obs, its next_obs `nstep` steps later (n-step rows: the `nstep` column), and a
frame is reused only if it is equal. So a stack never takes frames from another episode or
env, and every sampled observation is bit for bit the one pushed, episode boundaries
included (a reset stack [f, f, f, f] is stored as one frame, f).

Everything else is `DequeBuffer`'s: the other columns, ids, `sample` / `groupby` /
`unroll_len`, PER and the other middleware, `data_pusher`. When the frame ring is about to
overwrite frames that live rows use (more than `1 + frame_slack` frames per row on average:
very short episodes), the oldest of those rows are deleted first, through the middleware.
"""
import threading
from collections.abc import Mapping
from contextlib import contextmanager
from typing import Any, Dict, Iterator, Optional

import numpy as np
import torch

from ding.data.batch import Batch, as_batch
from ding.data.buffer.buffered_data import BufferedData, SampledBatch
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.data.buffer.frame_store import FrameStore, from_uint8, to_uint8
from ding.data.buffer.frame_tracks import Track, assign_frames
from ding.data.buffer.meta_columns import meta_of_rows
from ding.utils.registry import BUFFER_REGISTRY

PIXEL_KEYS = ('obs', 'next_obs')


def _numpy(value: Any) -> np.ndarray:
    return value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)


def _one_row(value: Any) -> Any:
    """A single row's value as a column of one (a dict push as a Batch push)."""
    if isinstance(value, torch.Tensor):
        return value.unsqueeze(0)
    if isinstance(value, Mapping):
        return {k: _one_row(v) for k, v in value.items()}
    return np.asarray(value)[None]


@BUFFER_REGISTRY.register('frame')
class FrameBuffer(DequeBuffer):
    config = dict(type='frame', replay_buffer_size=10000)

    def __init__(self, size: int, sliced: bool = False, frame_slack: float = 1 / 32) -> None:
        if not 0 <= frame_slack <= 8:
            raise ValueError(f'frame_slack is the extra frame room per row, in [0, 8]; got {frame_slack}')
        self.frame_slack = float(frame_slack)
        self._ids_only_threads: set = set()  # threads inside frame_ids_only()
        super().__init__(size, sliced)

    def _reset(self) -> None:
        super()._reset()
        self._store: Optional[FrameStore] = None
        self._layout: Optional[Dict[str, Any]] = None  # stack depth, frame shape, float / torch inputs
        self._tracks: Dict[Any, Track] = {}  # env -> its recent frames by step (frame_tracks.py)
        self._floor = 0  # no live row uses a frame id below this

    # --- push ---------------------------------------------------------------------------
    def _push(self, data: Any, meta: Optional[dict] = None) -> Any:
        if isinstance(data, Batch):
            return self._push_batch(data, meta)
        if not isinstance(data, Mapping):
            raise TypeError(f'FrameBuffer stores transitions with obs and next_obs; got a {type(data).__name__}')
        pushed = self._push_batch(as_batch({k: _one_row(v) for k, v in data.items()}), meta)
        return BufferedData(data, int(pushed.index[0]), {} if meta is None else meta)

    def _push_batch(self, data: Batch, meta: Optional[dict]) -> Any:
        missing = [k for k in PIXEL_KEYS if k not in data]
        if missing:
            raise KeyError(f'FrameBuffer needs columns {list(PIXEL_KEYS)}; the pushed batch lacks {missing}')
        fresh = self._columns is None
        try:
            return self._push_frames(data, meta)
        except BaseException:
            if fresh and self._columns is None:  # a failed first push fixes no layout
                self._layout, self._store, self._tracks = None, None, {}
            raise

    def _push_frames(self, data: Batch, meta: Optional[dict]) -> Any:
        n = len(data)
        obs, nxt = _numpy(data['obs']), _numpy(data['next_obs'])
        self._check_layout(obs, nxt, data)
        fields = (set(data.keys()) - set(PIXEL_KEYS)) | {'obs_frame_ids', 'next_obs_frame_ids'}
        if self._columns is not None and fields != set(self._columns.arrays):
            # DequeBuffer would fall back to storing whole objects; frames cannot be shared then
            raise ValueError(f'FrameBuffer rows keep the fields of the first push: {sorted(self._columns.arrays)} '
                             f'(obs / next_obs as frame ids); got {sorted(fields)}')
        chunk = max(1, (self._store.capacity - self._store.capacity // 8) // (2 * self._layout['k']))
        if n > chunk:  # more rows than the frame ring takes at once (a huge first push)
            parts = [self._push_batch(data[i:i + chunk], meta_of_rows(meta, n, slice(i, i + chunk)))
                     for i in range(0, n, chunk)]
            return SampledBatch(data, np.concatenate([p.index for p in parts]))
        envs = _numpy(data['env_id']).reshape(n).tolist() if 'env_id' in data else [None] * n
        steps = _numpy(data['nstep']).reshape(n) if 'nstep' in data else np.ones(n, dtype=np.int64)
        # Frames are matched as pushed (float or uint8) and only the new ones are coded: coding
        # every stack would cost 8x the work. First assume about a frame per row; if the push
        # appends more, frames it reuses from earlier pushes could be overwritten: redo with the worst case.
        first_new, k = self._store.next_id, self._layout['k']
        guess = self._store.oldest_kept(n + k * len(set(envs)))
        obs_ids, next_ids, new_frames, tracks, oldest_reused = assign_frames(obs, nxt, envs, steps, self._tracks,
                                                                             first_new, guess)
        if oldest_reused < self._store.oldest_kept(len(new_frames)):
            worst = self._store.oldest_kept(2 * n * k)
            obs_ids, next_ids, new_frames, tracks, _ = assign_frames(obs, nxt, envs, steps, self._tracks, first_new,
                                                                     worst)
        coded = to_uint8(np.stack(new_frames), 'obs / next_obs') if new_frames else None
        self._make_room(len(new_frames))
        if coded is not None:
            self._store.append(coded)
        rows = Batch.wrap({k: v for k, v in data.items() if k not in PIXEL_KEYS})
        rows['obs_frame_ids'], rows['next_obs_frame_ids'] = obs_ids, next_ids
        pushed = super()._push_batch(rows, meta)
        self._tracks.update({env: track.owned() for env, track in tracks.items()})  # copies, not the whole batch
        self._floor = min(self._floor, int(obs_ids.min()), int(next_ids.min()))
        return SampledBatch(data, pushed.index)

    def _check_layout(self, obs: np.ndarray, nxt: np.ndarray, data: Batch) -> None:
        if obs.ndim < 3 or obs.shape != nxt.shape:
            raise ValueError(f'FrameBuffer needs stacked frames obs [n, k, ...frame] with next_obs alike; got obs '
                             f'{obs.shape}, next_obs {nxt.shape}')
        layout = dict(k=obs.shape[1], frame_shape=obs.shape[2:], scaled=obs.dtype.kind == 'f',
                      torch=isinstance(data['obs'], torch.Tensor))
        if self._layout is None:
            self._layout = layout
            capacity = int(self.size * (1 + self.frame_slack)) + 4 * layout['k']
            self._store = FrameStore(capacity, layout['frame_shape'])
        elif any(layout[key] != self._layout[key] for key in ('k', 'frame_shape', 'scaled')):
            kind = lambda lay: 'float' if lay['scaled'] else 'uint8'  # noqa: E731
            raise ValueError(f'FrameBuffer holds {kind(self._layout)} stacks of {self._layout["k"]} frames '
                             f'{self._layout["frame_shape"]}; got {kind(layout)} stacks of {layout["k"]} frames '
                             f'{layout["frame_shape"]} (clear() to change)')

    def _make_room(self, n_new: int) -> None:
        """Delete the live rows whose frames the next `n_new` frames would overwrite. Rows a
        little newer go too (1/64 of the ring), so the scan is not repeated on every push."""
        threshold = self._store.oldest_kept(n_new)
        if threshold <= self._floor:
            return
        live = self._live_slots()
        lowest = np.minimum(self._columns.leaf('obs_frame_ids')[live].min(axis=1),
                            self._columns.leaf('next_obs_frame_ids')[live].min(axis=1))
        cut = threshold + self._store.capacity // 64
        stale = lowest < cut
        if stale.any():
            self.delete(self._ids[live[stale]])  # through the middleware chain (PER forgets them)
        self._floor = int(lowest[~stale].min()) if (~stale).any() else cut

    # --- read ---------------------------------------------------------------------------
    def gather(self, slots: np.ndarray) -> SampledBatch:
        sampled = super().gather(slots)
        if threading.get_ident() not in self._ids_only_threads:
            sampled.batch = self.read_frames(sampled.batch)
        return sampled

    @contextmanager
    def frame_ids_only(self) -> Iterator[None]:
        """Within it (in this thread), `gather` leaves the pixel columns as frame ids
        (`obs_frame_ids`, `next_obs_frame_ids`). A caller that concatenates many gathers (the
        windows of a sequence sample) then reads their frames once with `read_frames`, holding
        `self.lock` throughout so that no push overwrites them in between: converting and
        concatenating 32 windows of float frames one by one was most of an IMPALA update on Pong."""
        me = threading.get_ident()
        self._ids_only_threads.add(me)
        try:
            yield
        finally:
            self._ids_only_threads.discard(me)

    def read_frames(self, batch: Batch) -> Batch:
        """`batch` with its frame-id columns replaced by the observations as pushed."""
        if self._layout is None or 'obs_frame_ids' not in batch:
            return batch
        columns = {}
        for key, value in batch.items():
            if key in ('obs_frame_ids', 'next_obs_frame_ids'):
                key = key[:-len('_frame_ids')]
                value = from_uint8(self._store.read(value), self._layout['scaled'])
                value = torch.from_numpy(value) if self._layout['torch'] else value
            columns[key] = value
        return Batch.wrap(columns)

    def _update(self, index: Any, data: Any = None, meta: Optional[dict] = None) -> Any:
        if data is not None:
            raise TypeError('FrameBuffer shares frames between rows, so it does not rewrite stored data; '
                            'update(index, meta=...) (e.g. priorities) works')
        return super()._update(index, None, meta)

    def frame_bytes(self) -> int:
        """Bytes held by the frame ring (all of it, written or not)."""
        return 0 if self._store is None else self._store.frames.nbytes

    # --- persistence --------------------------------------------------------------------
    def state_dict(self) -> Dict[str, Any]:
        return dict(super().state_dict(), frames=None if self._store is None else self._store.state_dict(),
                    frame_layout=self._layout, frame_floor=self._floor)

    def rows_state_dict(self) -> Dict[str, Any]:
        return dict(super().rows_state_dict(), frames=None if self._store is None else self._store.rows_state_dict(),
                    frame_layout=self._layout, frame_floor=self._floor)

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        super().load_state_dict(state)
        self._store = None if state['frames'] is None else FrameStore.from_state_dict(state['frames'])
        self._layout, self._floor = state['frame_layout'], state['frame_floor']
        self._tracks = {}  # the next push of each env stores its obs afresh: exact, one stack larger
