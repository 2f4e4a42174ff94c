"""Observation and reward normalisation inside one env (`obs_norm`, `reward_norm`,
`static_obs_norm`), on a `RunningMeanStd`.

The statistics persist across episodes, on purpose: resetting them at every episode reset
would throw away what was learnt and make them useless to save or to freeze. `frozen=True`
(set for evaluator envs by `DingEnvWrapper(caller='evaluator')`) stops updates. The statistics
live in `self.rms`, part of the env object, so the env snapshots of exact resume (serial and
subprocess managers) carry them bit for bit.

For one set of statistics shared by all the envs of a manager (and read frozen by the
evaluator's), use `NormalizedEnvManager` (normalized_manager.py) instead.
"""
from typing import Any, Sequence, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from ding.envs.env_wrappers.running_stats import RunningMeanStd
from ding.utils.registry import ENV_WRAPPER_REGISTRY


class _StatsWrapper(gymnasium.Wrapper):
    """Shared parts: the `rms` statistics, the warm-up and `frozen`."""

    def __init__(self, env: gymnasium.Env, shape: Tuple[int, ...], warmup: int, frozen: bool) -> None:
        super().__init__(env)
        self.rms = RunningMeanStd(shape=shape)
        self.rms.frozen = bool(frozen)
        self.warmup = int(warmup)  # raw values until the statistics have seen this many samples

    @property
    def frozen(self) -> bool:
        return self.rms.frozen

    @frozen.setter
    def frozen(self, value: bool) -> None:
        self.rms.frozen = bool(value)

    def _ready(self) -> bool:
        return self.rms.count > self.warmup


@ENV_WRAPPER_REGISTRY.register('obs_norm')
class ObsNormWrapper(_StatsWrapper):
    """Observations as (obs - mean) / std clipped to `clip_range`, float32; raw (float32)
    during the first `warmup` observations."""

    def __init__(self, env: gymnasium.Env, clip_range: Sequence[float] = (-3, 3), warmup: int = 30,
                 frozen: bool = False) -> None:
        space = env.observation_space
        if not isinstance(space, spaces.Box):
            raise TypeError(f'ObsNormWrapper needs a Box observation space; got {space}')
        super().__init__(env, tuple(space.shape), warmup, frozen)
        self.clip_range = tuple(clip_range)
        self.observation_space = spaces.Box(low=self.clip_range[0], high=self.clip_range[1], shape=space.shape,
                                            dtype=np.float32)

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        return self.observation(obs), info

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.rms.update(np.asarray(obs)[None])
        return self.observation(obs), reward, terminated, truncated, info

    def observation(self, obs: Any) -> np.ndarray:
        if not self._ready():
            return np.asarray(obs, dtype=np.float32)
        return self.rms.normalize(obs, self.clip_range).astype(np.float32)


@ENV_WRAPPER_REGISTRY.register('reward_norm')
class RewardNormWrapper(_StatsWrapper):
    """Reward divided by the running std of the discounted return (`reward_discount`);
    raw during the first `warmup` steps. The final info of an episode carries
    `eval_episode_return`, the sum of the raw rewards (unless an inner wrapper set it), so
    evaluation reports true returns."""

    def __init__(self, env: gymnasium.Env, reward_discount: float = 0.99, warmup: int = 30,
                 frozen: bool = False) -> None:
        super().__init__(env, (1, ), warmup, frozen)
        self.reward_discount = float(reward_discount)
        self.cum_reward = np.zeros((1, ), dtype=np.float64)
        self._raw_return = 0.0

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        self.cum_reward = np.zeros((1, ), dtype=np.float64)
        self._raw_return = 0.0
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        raw = float(np.asarray(reward).reshape(()))
        self._raw_return += raw
        self.cum_reward = self.cum_reward * self.reward_discount + raw
        self.rms.update(self.cum_reward[None])
        if terminated or truncated:
            self.cum_reward = np.zeros((1, ), dtype=np.float64)
            if 'eval_episode_return' not in info:
                info = dict(info, eval_episode_return=self._raw_return)
        return obs, self.reward(raw), terminated, truncated, info

    def reward(self, reward: float) -> float:
        return float(reward / self.rms.std[0]) if self._ready() else float(reward)


@ENV_WRAPPER_REGISTRY.register('static_obs_norm')
class StaticObsNormWrapper(gymnasium.ObservationWrapper):
    """Observations normalised by a fixed `mean` and `std` (e.g. from a dataset), clipped to [-3, 3]."""

    def __init__(self, env: gymnasium.Env, mean: Any, std: Any) -> None:
        super().__init__(env)
        self.mean = np.asarray(mean)
        self.std = np.asarray(std)
        self.clip_range = (-3, 3)

    def observation(self, observation: Any) -> np.ndarray:
        return np.clip((observation - self.mean) / self.std, *self.clip_range).astype(np.float32)
