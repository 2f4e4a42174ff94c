"""`[B, T]` transition arrays filled step by step by a rollout loop (`StepCollector`, the
alternating sampler), handed out as one env-major `Batch` (the layout of `ctx.trajectories`,
see docs/internals.md).

A row whose episode an env restart dropped (`info['dropped_episode']`, see
ding/envs/env_manager/env_faults.py) is left out of the Batch: it is no transition. The
env's previous row, the last real step of that episode, is marked truncated (the episode
was cut short there; bootstrapping continues from its next_obs)."""
from typing import Any, Dict, Mapping, Optional, Sequence

import numpy as np

from ding.data.batch import Batch
from ding.envs.env_manager.env_faults import dropped_rows


class TransitionColumns:
    """Rows `row0 : row0 + len(obs)` of step `t` are written by `record`; `to_batch` reshapes
    to `[B * T]` without copying."""

    def __init__(self, env_num: int, steps: int, extra_keys: Sequence[str] = ()) -> None:
        self.env_num, self.steps, self.extra_keys = env_num, steps, tuple(extra_keys)
        self.cols: Optional[Dict[str, np.ndarray]] = None
        self.episodes = 0
        self.keep: Optional[np.ndarray] = None  # bool [B, T], made at the first dropped row

    def _allocate(self, obs: np.ndarray, out: Mapping[str, Any], result: Any) -> None:
        def column(value: Any, dtype: Any = None) -> np.ndarray:
            value = np.asarray(value)
            return np.empty((self.env_num, self.steps) + value.shape[1:], dtype=dtype or value.dtype)

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
