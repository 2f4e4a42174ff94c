"""`BaseEnv`: the env interface of ding, and `BaseEnvTimestep`, what its `step` returns.

Two levels of the same interface:
- the timestep level, `reset() -> obs` and `step(action) -> BaseEnvTimestep(obs, reward,
  done, info)`, which user envs implement;
- the gymnasium level, `gym_reset() -> (obs, info)` and `gym_step(action) -> (obs, reward,
  terminated, truncated, info)`, which env managers call on their hot path because it
  allocates nothing beyond what the env itself returns. `BaseEnv` derives it from the
  timestep level; `DingEnvWrapper` binds it straight to the wrapped gymnasium env.
"""
from abc import ABC, abstractmethod
from collections import namedtuple
from typing import Any, List, Optional, Tuple

import numpy as np

from ding.utils.dicts import deep_merge
from ding.utils.class_config import merged_class_config
from ding.config.schema import key, positive_int

BaseEnvTimestep = namedtuple('BaseEnvTimestep', ['obs', 'reward', 'done', 'info'])


def is_truncated(info: Any) -> bool:
    """Whether a timestep's `info` says the episode ended by a time limit."""
    return bool(info and (info.get('truncated', False) or info.get('TimeLimit.truncated', False)))


def scalar_reward(reward: Any) -> float:
    """A python float from a timestep's reward (a float or a one-element array)."""
    if isinstance(reward, float):
        return reward
    return float(np.asarray(reward).reshape(()))


class BaseEnv(ABC):
    """Abstract env. Subclasses declare `config` and implement reset/step/seed/close and the
    three spaces. The env-level keys below are read by the pipeline (collector/evaluator
    counts, stop value), so every env config carries them."""
    config = dict(
        collector_env_num=positive_int(8),
        evaluator_env_num=positive_int(5),
        n_evaluator_episode=positive_int(5),
        stop_value=key(float('inf'), 'real'),
    )

    default_config = classmethod(merged_class_config)

    def __init__(self, cfg: Any = None) -> None:
        self._cfg = deep_merge(self.default_config(), cfg or {})

    @abstractmethod
    def reset(self) -> Any:
        """Start an episode; return its first observation."""

    @abstractmethod
    def step(self, action: Any) -> BaseEnvTimestep:
        """Advance one step. `info['eval_episode_return']` is set when the episode ends."""

    @abstractmethod
    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        """Seed the next reset with `seed`; with `dynamic_seed=False` every reset reuses it."""

    @abstractmethod
    def close(self) -> None:
        """Release the env's resources."""

    @property
    @abstractmethod
    def observation_space(self) -> Any:
        ...

    @property
    @abstractmethod
    def action_space(self) -> Any:
        ...

    @property
    @abstractmethod
    def reward_space(self) -> Any:
        ...

    # --- the gymnasium-level interface env managers use ---------------------------------
    def gym_reset(self) -> Tuple[Any, dict]:
        return self.reset(), {}

    def gym_step(self, action: Any) -> Tuple[Any, float, bool, bool, dict]:
        obs, reward, done, info = self.step(action)
        info = info if info is not None else {}
        truncated = bool(done) and is_truncated(info)
        return obs, scalar_reward(reward), bool(done) and not truncated, truncated, info

    # --- conveniences ----------------------------------------------------------------------
    def random_action(self) -> Any:
        return self.action_space.sample()

    def enable_save_replay(self, replay_path: Optional[str]) -> None:
        raise NotImplementedError(f'{type(self).__name__} cannot save replays')

    @staticmethod
    def create_collector_env_cfg(cfg: Any) -> List[Any]:
        return [cfg] * int(cfg.get('collector_env_num', 1))

    @staticmethod
    def create_evaluator_env_cfg(cfg: Any) -> List[Any]:
        return [cfg] * int(cfg.get('evaluator_env_num', 1))

    def __repr__(self) -> str:
        return f'{type(self).__name__}()'
