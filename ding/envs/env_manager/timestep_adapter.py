"""The DI-engine-compatible `step(actions)` of an env manager, built on its `step_batch`.

Why a separate piece: the hot path never builds per-env objects; callers written for
DI-engine get them here, at their cost, without slowing the batched path down.
"""
from typing import Any, List, Mapping, Sequence, Union

import numpy as np

from ding.envs.env_manager.step_batch import EnvTimestep


class TimestepAdapter:
    """Mixed into a manager that has `step_batch`, `_check_running`, `_active_ids`, `_env_num`."""
    # Whether `step({env_id: action})` may name only some ready envs: the
    # manager then steps only those (it must step just the envs its `_active` mask marks).
    steps_env_subsets = False

    def step(self, actions: Union[Mapping[int, Any], Sequence[Any]]) -> List[EnvTimestep]:
        """Per-env step: actions as {env_id: action} (only those envs step, where
        the manager can: `steps_env_subsets`) or a list in `ready_obs_id` order; one
        `EnvTimestep` per env stepped."""
        ids, full = self._action_rows(actions)
        return self._timesteps(ids, self._step_rows(ids, full))

    def _action_rows(self, actions: Union[Mapping[int, Any], Sequence[Any]]) -> tuple:
        """(env ids to step, [env_num, ...] actions with those ids' rows filled)."""
        self._check_running()
        ready = list(self._active_ids)
        if isinstance(actions, Mapping):
            ids = sorted(int(k) for k in actions)
            if ids != ready and not (self.steps_env_subsets and set(ids) <= set(ready)):
                wanted = 'a subset of the' if self.steps_env_subsets else 'one action for each'
                raise ValueError(f'{type(self).__name__}.step() needs {wanted} ready envs {ready}, got env ids {ids}')
            given = [np.asarray(actions[i]) for i in ids]
        else:
            ids = ready
            if len(actions) != len(ids):
                raise ValueError(f'step() needs {len(ids)} actions (ready envs {ids}), got {len(actions)}')
            given = [np.asarray(a) for a in actions]
        full = [given[0]] * self._env_num  # rows of envs that are not stepped are ignored
        for i, a in zip(ids, given):
            full[i] = a
        return ids, np.stack(full)

    def _step_rows(self, ids: List[int], full: np.ndarray) -> Any:
        return self.step_batch(full) if ids == list(self._active_ids) else self._step_only(ids, full)

    def _timesteps(self, ids: List[int], result: Any) -> List[EnvTimestep]:
        out = []
        for i in ids:
            info = dict(result.infos[i] or {}, terminated=bool(result.terminated[i]),
                        truncated=bool(result.truncated[i]))
            done = info['terminated'] or info['truncated']
            out.append(EnvTimestep(result.next_obs[i], result.reward[i:i + 1], done, info, env_id=i))
        return out

    def _step_only(self, env_ids: List[int], actions: np.ndarray) -> Any:
        """`step_batch` with the other ready envs held back (masked out of `_active` for the call)."""
        held = [i for i in self._active_ids if i not in set(env_ids)]
        self._active[held] = False
        self._update_active()
        try:
            return self.step_batch(actions)
        finally:
            self._active[held] = True
            self._update_active()
