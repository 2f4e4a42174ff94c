"""The DI-engine-compatible `step(actions)` of an env manager, built on its `step_batch`.

Why a separate piece: the hot path never builds per-env objects; callers written for
DI-engine get them here, at their cost, without slowing the batched path down.
"""
from typing import Any, List, Mapping, Sequence, Union

import numpy as np

from ding.envs.env_manager.step_batch import EnvTimestep


class TimestepAdapter:
    """Mixed into a manager that has `step_batch`, `_check_running`, `_active_ids`, `_env_num`."""

    def step(self, actions: Union[Mapping[int, Any], Sequence[Any]]) -> List[EnvTimestep]:
        """DI-engine-compatible step: actions for the ready envs, as {env_id: action} or a
        list in `ready_obs_id` order; one `EnvTimestep` per ready env."""
        self._check_running()
        ids = list(self._active_ids)
        if isinstance(actions, Mapping):
            if sorted(int(k) for k in actions) != ids:
                raise ValueError(f'step() needs one action for each ready env {ids}, got env ids {sorted(actions)}')
            given = [np.asarray(actions[i]) for i in ids]
        else:
            if len(actions) != len(ids):
                raise ValueError(f'step() needs {len(ids)} actions (ready envs {ids}), got {len(actions)}')
            given = [np.asarray(a) for a in actions]
        full = [given[0]] * self._env_num  # rows of envs that are not ready are ignored
        for i, a in zip(ids, given):
            full[i] = a
        result = self.step_batch(np.stack(full))
        out = []
        for i in ids:
            info = result.infos[i]
            info = dict(info) if info else {}
            info['terminated'] = bool(result.terminated[i])
            info['truncated'] = bool(result.truncated[i])
            done = info['terminated'] or info['truncated']
            out.append(EnvTimestep(result.next_obs[i], result.reward[i:i + 1], done, info, env_id=i))
        return out

