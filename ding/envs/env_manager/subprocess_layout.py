"""Pieces of the subprocess manager that are not the stepping logic: the shared-array
layout for a set of envs, what the base class sees of a remote env, and the bundle of
workers + memory that must be released exactly once."""
from typing import Any, Dict, List

import numpy as np
from gymnasium import spaces

from ding.envs.env_manager.obs_stack import obs_dtype
from ding.envs.env_manager.shared_obs import dict_leaves
from ding.envs.env_manager.worker_pool import WorkerHandle, stop_all


class RemoteEnv:
    """What the base class sees of an env living elsewhere (in a worker, or inside a vector env): its spaces."""
    gym_step = None

    def __init__(self, observation_space: Any, action_space: Any, reward_space: Any) -> None:
        self.observation_space, self.action_space, self.reward_space = observation_space, action_space, reward_space

    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        pass  # seeds go where the env lives, in the manager's `_apply_seeds`

    def close(self) -> None:
        pass


class LaunchResources:
    """The workers and shared memory of one launch, closed once (by `close()`, by garbage
    collection of the manager, or at interpreter exit) without a reference to the manager."""

    def __init__(self, handles: List[WorkerHandle]) -> None:
        self.handles, self.shm = handles, None

    def close(self) -> None:
        stop_all(self.handles)
        self.handles = []
        if self.shm is not None:
            self.shm.close()
            self.shm = None


def array_spec(n: int, obs_space: Any, act_space: Any) -> Dict[str, tuple]:
    if isinstance(obs_space, spaces.Dict):  # one shared array per leaf (see `obs_arrays`)
        leaves = dict_leaves(n, obs_space, obs_space, '')
        obs_spec = {f'{side}/{path}': spec for side in ('next_obs', 'ready_obs') for path, spec in leaves}
    else:
        shape = getattr(obs_space, 'shape', None)
        if shape is None:
            raise ValueError(f'SubprocessEnvManagerV2 needs observations of a fixed shape, got space {obs_space}; '
                             f'use the base_v2 manager for this env')
        obs = ((n, ) + tuple(shape), np.dtype(obs_dtype(obs_space)).name)
        obs_spec = dict(next_obs=obs, ready_obs=obs)
    if isinstance(act_space, spaces.Discrete):
        action = ((n, ), 'int64')
    elif isinstance(act_space, (spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        action = ((n, ) + tuple(act_space.shape), act_space.dtype)
    else:
        action = ((0, ), 'uint8')  # not an array space: actions are pickled
    return dict(obs_spec, reward=((n, ), 'float32'), terminated=((n, ), 'bool'), truncated=((n, ), 'bool'),
                reset_flag=((n, ), 'uint8'), active=((n, ), 'bool'), action=action)


def action_kind(action: np.ndarray, n: int) -> str:
    if action.shape[:1] != (n, ):
        return 'pickled'
    return 'discrete' if action.ndim == 1 and action.dtype == np.int64 else 'array'
