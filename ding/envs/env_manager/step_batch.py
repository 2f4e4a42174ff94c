"""What an env manager hands back per step: one `EnvStepBatch` of stacked arrays on the hot
path, or one `EnvTimestep` per env on the per-env `step(actions)` path."""
from typing import Any, NamedTuple, Sequence

import numpy as np

from ding.envs.base_env import BaseEnvTimestep


class EnvStepBatch(NamedTuple):
    """The result of `step_batch`, one row per env. The arrays are fresh each call (the
    caller may keep them). `next_obs` holds the terminal observation where an episode ended;
    the manager's `ready_obs` then holds the reset one."""
    next_obs: np.ndarray  # float32 [n, *obs_shape] (uint8 frames stay uint8)
    reward: np.ndarray  # float32 [n]
    terminated: np.ndarray  # bool [n]: do not bootstrap past it
    truncated: np.ndarray  # bool [n]: time limit; bootstrapping continues
    episode_return: np.ndarray  # float64 [n], NaN unless the episode ended on this step
    episode_length: np.ndarray  # int64 [n], 0 unless the episode ended on this step
    infos: Sequence[dict]  # the envs' info dicts; `eval_episode_return` set where one ended

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated


class EnvTimestep(BaseEnvTimestep):
    """A `BaseEnvTimestep(obs, reward, done, info)` that also carries `.env_id`; it still
    unpacks into four values."""

    def __new__(cls, obs: Any, reward: Any, done: bool, info: dict, env_id: int = None) -> 'EnvTimestep':
        self = super().__new__(cls, obs, reward, done, info)
        self.env_id = env_id
        return self

    def __repr__(self) -> str:
        return f'EnvTimestep(env_id={self.env_id}, obs={self.obs!r}, reward={self.reward!r}, ' \
               f'done={self.done!r}, info={self.info!r})'
