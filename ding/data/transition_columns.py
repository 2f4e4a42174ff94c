"""`[B, T]` transition arrays filled step by step by a rollout loop (`StepCollector`, the
alternating sampler), handed out as one env-major `Batch` (the layout of `ctx.trajectories`,
see docs/internals.md)."""
from typing import Any, Dict, Mapping, Optional, Sequence

import numpy as np

from ding.data.batch import Batch


class TransitionColumns:
    """Rows `row0 : row0 + len(obs)` of step `t` are written by `record`; `to_batch` reshapes
    to `[B * T]` without copying."""

    def __init__(self, env_num: int, steps: int, extra_keys: Sequence[str] = ()) -> None:
        self.env_num, self.steps, self.extra_keys = env_num, steps, tuple(extra_keys)
        self.cols: Optional[Dict[str, np.ndarray]] = None
        self.episodes = 0

    def _allocate(self, obs: np.ndarray, out: Mapping[str, Any], result: Any) -> None:
        def column(value: Any, dtype: Any = None) -> np.ndarray:
            value = np.asarray(value)
            return np.empty((self.env_num, self.steps) + value.shape[1:], dtype=dtype or value.dtype)

        obs_dtype = np.float32 if np.asarray(obs).dtype == np.float64 else None  # uint8 frames stay uint8
        self.cols = dict(obs=column(obs, obs_dtype), action=column(out['action']),
                         reward=column(result.reward, np.float32), next_obs=column(result.next_obs, obs_dtype),
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
        self.episodes += len(ended)
        return ended

    def to_batch(self) -> Batch:
        n, steps = self.env_num, self.steps
        flat = {k: v.reshape((n * steps, ) + v.shape[2:]) for k, v in self.cols.items()}
        flat['env_id'] = np.repeat(np.arange(n, dtype=np.int64), steps)
        return Batch(flat)

    @property
    def end_idx(self) -> list:
        """`ctx.trajectory_end_idx`: the last row of each env's segment."""
        return list(range(self.steps - 1, self.steps * self.env_num, self.steps))
