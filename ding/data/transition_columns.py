"""`[B, T]` transition arrays filled step by step by a rollout loop (`StepCollector`, the
alternating sampler), handed out as one env-major `Batch` (the layout of `ctx.trajectories`,
see docs/internals.md).

A row whose episode an env restart dropped (`info['dropped_episode']`, see
ding/envs/env_manager/env_faults.py) is left out of the Batch: it is no transition. The
env's previous row, the last real step of that episode, is marked truncated (the episode
was cut short there; bootstrapping continues from its next_obs).

A collector that records call after call passes a `ColumnPool`, so the columns' memory is
reused once nothing refers to the last call's arrays any more."""
import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ding.data.batch import Batch
from ding.envs.env_manager.env_faults import dropped_rows


class ColumnPool:
    """Column arrays kept from one collect call to the next.

    Why: the observation columns of 8 Atari envs over 8 steps are 2 x 7 MB of float32 frames,
    and a fresh array is fresh pages to fault in: recording a step of 8 Pong envs took 0.45 ms
    into fresh columns and 0.15 ms into reused ones. An array is handed out again only when the pool
    holds the one reference left to it: while a Batch, a view or a buffer row still refers to
    it, a new one is made, so reuse never changes data that anyone can still read.
    """

    def __init__(self, per_shape: int = 4) -> None:  # obs and next_obs, for this call and one still in use
        self._per_shape = per_shape
        self._arrays: Dict[Tuple[Tuple[int, ...], str], List[np.ndarray]] = {}

    def empty(self, shape: Tuple[int, ...], dtype: Any) -> np.ndarray:
        arrays = self._arrays.setdefault((tuple(shape), np.dtype(dtype).str), [])
        for array in arrays:
            if sys.getrefcount(array) <= _POOL_ONLY:
                return array
        array = np.empty(shape, dtype=dtype)
        if len(arrays) < self._per_shape:
            arrays.append(array)
        return array


# References to a pooled array while `empty` looks at it when nothing else holds it: the pool's
# list, the loop variable and getrefcount's argument (CPython; tests/data/test_transition_columns.py).
_POOL_ONLY = 3


class TransitionColumns:
    """Rows `row0 : row0 + len(obs)` of step `t` are written by `record`; `to_batch` reshapes
    to `[B * T]` without copying. With a `pool`, the columns come from it (see `ColumnPool`)."""

    def __init__(self, env_num: int, steps: int, extra_keys: Sequence[str] = (),
                 pool: Optional[ColumnPool] = None) -> None:
        self.env_num, self.steps, self.extra_keys = env_num, steps, tuple(extra_keys)
        self._empty = pool.empty if pool is not None else np.empty
        self.cols: Optional[Dict[str, np.ndarray]] = None
        self.episodes = 0
        self.keep: Optional[np.ndarray] = None  # bool [B, T], made at the first dropped row

    def _allocate(self, obs: np.ndarray, out: Mapping[str, Any], result: Any) -> None:
        # The helpers below do not refer to `self`: the recursive ones are reference cycles, which
        # would keep this object and its columns alive until the garbage collector runs.
        lead, empty = (self.env_num, self.steps), self._empty

        def column(value: Any, dtype: Any = None) -> np.ndarray:
            value = np.asarray(value)
            return empty(lead + value.shape[1:], dtype or value.dtype)

        def obs_column(value: Any) -> Any:  # float64 -> float32, uint8 frames stay uint8; dict obs nest
            if isinstance(value, Batch):
                return value.apply(obs_column)
            return column(value, np.float32 if np.asarray(value).dtype == np.float64 else None)

        def action_column(value: Any) -> Any:  # hybrid actions ({'action_type', 'action_args'}) nest
            return value.apply(action_column) if isinstance(value, Batch) else column(value)

        self.cols = dict(obs=obs_column(obs), action=action_column(out['action']),
                         reward=column(result.reward, np.float32), next_obs=obs_column(result.next_obs),
                         done=column(result.terminated, np.bool_), truncated=column(result.truncated, np.bool_))
        for k in self.extra_keys:
            if k in out:
                self.cols[k] = column(out[k])

    def record(self, t: int, row0: int, obs: np.ndarray, out: Mapping[str, Any], result: Any) -> np.ndarray:
        """Store one step of envs `row0...`; returns the local ids of envs whose episode ended."""
        if self.cols is None:
            self._allocate(obs, out, result)
        rows = slice(row0, row0 + len(obs))
        c = self.cols
        c['obs'][rows, t] = obs
        c['action'][rows, t] = out['action']
        c['reward'][rows, t] = result.reward
        c['next_obs'][rows, t] = result.next_obs
        c['done'][rows, t] = result.terminated
        c['truncated'][rows, t] = result.truncated
        for k in self.extra_keys:
            if k in c:
                c[k][rows, t] = out[k]
        ended = np.flatnonzero(result.terminated | result.truncated)
        if len(ended):
            dropped = dropped_rows(result, ended)
            if len(dropped):
                self._drop(t, dropped + row0)
            self.episodes += len(ended) - len(dropped)
        return ended

    def _drop(self, t: int, rows: np.ndarray) -> None:
        if self.keep is None:
            self.keep = np.ones((self.env_num, self.steps), dtype=bool)
        self.keep[rows, t] = False
        if t > 0:
            c = self.cols
            cut = rows[self.keep[rows, t - 1] & ~c['done'][rows, t - 1]]
            c['truncated'][cut, t - 1] = True

    def to_batch(self) -> Batch:
        n, steps = self.env_num, self.steps
        flat = {k: _flatten(v, n * steps) for k, v in self.cols.items()}
        flat['env_id'] = np.repeat(np.arange(n, dtype=np.int64), steps)
        if self.keep is not None:
            kept = self.keep.reshape(-1)
            flat = {k: v[kept] for k, v in flat.items()}
        return Batch(flat)


def _flatten(column: Any, rows: int) -> Any:
    """`[B, T, ...]` -> `[B * T, ...]` without a copy (a dict observation's Batch: each leaf)."""
    if isinstance(column, Batch):
        return column.apply(lambda v: _flatten(v, rows))
    return column.reshape((rows, ) + column.shape[2:])
