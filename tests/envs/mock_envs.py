"""Small deterministic envs whose every observation and reward can be computed by hand (one
that raises on purpose, for the fault tests), and a tiny Q-network for CartPole-shaped
observations."""
import os
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from torch import nn

from ding.envs import BaseEnv, BaseEnvTimestep, DingEnvWrapper


class CountingEnv(gymnasium.Env):
    """obs = [t, start] (float64, to check conversion), start drawn from the env's RNG at each
    reset; reward = action + 1; terminated at step `terminate_at`, truncated at `truncate_at`."""

    def __init__(self, terminate_at: int = 3, truncate_at: int = 100, obs_shape: tuple = (2, )) -> None:
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(2, ), dtype=np.float64)
        self.action_space = spaces.Discrete(3)
        self.terminate_at, self.truncate_at, self.obs_shape = terminate_at, truncate_at, obs_shape
        self.t, self.start = 0, 0

    def _obs(self) -> np.ndarray:
        return np.resize(np.array([self.t, self.start], dtype=np.float64), self.obs_shape)

    def reset(self, seed: Any = None, options: Any = None):
        super().reset(seed=seed)
        self.t, self.start = 0, int(self.np_random.integers(0, 1000))
        return self._obs(), {}

    def step(self, action: int):
        self.t += 1
        return self._obs(), float(action + 1), self.t >= self.terminate_at, self.t >= self.truncate_at, {}


def first_starts(seed: int, count: int):
    """The `start` values CountingEnv draws on `count` resets after `reset(seed=seed)`."""
    rng = np.random.default_rng(seed)
    return [int(rng.integers(0, 1000)) for _ in range(count)]


class LegacyCountingEnv:
    """A gym 0.21-style env: reset() -> obs, seed(s), 4-tuple step with TimeLimit.truncated."""

    def __init__(self, limit: int = 2) -> None:
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(1, ), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.limit, self.t, self.seeded = limit, 0, None

    def seed(self, seed: int) -> None:
        self.seeded = seed

    def reset(self):
        self.t = 0
        return [0.0]

    def step(self, action: int):
        self.t += 1
        return [float(self.t)], 0.5, self.t >= self.limit, {'TimeLimit.truncated': self.t >= self.limit}

    def close(self) -> None:
        pass


class DiengineStyleEnv(BaseEnv):
    """A BaseEnv written as for DI-engine: reward arrays, its own eval_episode_return (x10)."""

    def __init__(self, cfg: Any = None) -> None:
        super().__init__(cfg)
        self.t = 0

    def reset(self):
        self.t = 0
        return np.zeros(3, dtype=np.float32)

    def step(self, action: Any) -> BaseEnvTimestep:
        self.t += 1
        done = self.t >= 2
        info = {'eval_episode_return': 10.0 * self.t, 'TimeLimit.truncated': True} if done else {}
        return BaseEnvTimestep(np.full(3, self.t, dtype=np.float32), np.array([1.0], dtype=np.float32), done, info)

    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    observation_space = spaces.Box(-1.0, 1.0, shape=(3, ), dtype=np.float32)
    action_space = spaces.Box(-1.0, 1.0, shape=(1, ), dtype=np.float32)
    reward_space = spaces.Box(-np.inf, np.inf, shape=(1, ), dtype=np.float32)


EPISODE_LEN, FAIL_AT = 8, 5


class FaultyEpisodes(gymnasium.Env):
    """obs [t, 0, 0, 0] (t: the step in the episode), reward 1, `EPISODE_LEN` steps an
    episode; raises on step `FAIL_AT` when `fault` is 'every' (each episode) or 'once' (the
    first time any copy gets there, told by the `marker` file, so also across processes)."""
    observation_space = spaces.Box(-np.inf, np.inf, shape=(4, ), dtype=np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self, fault, marker):
        self.fault, self.marker, self.t = fault, marker, 0

    def _obs(self):
        return np.array([self.t, 0, 0, 0], dtype=np.float32)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        if self.t == FAIL_AT and self._fails_now():
            raise RuntimeError('env broke on purpose')
        return self._obs(), 1.0, self.t >= EPISODE_LEN, False, {}

    def _fails_now(self):
        if self.fault == 'every':
            return True
        if self.fault == 'once' and not os.path.exists(self.marker):
            open(self.marker, 'w').close()
            return True
        return False


def make_faulty_episodes(fault: Any, marker: str) -> DingEnvWrapper:
    """A FaultyEpisodes as a ding env (a picklable env_fn with functools.partial)."""
    return DingEnvWrapper(FaultyEpisodes(fault, marker))


class TinyQ(nn.Module):
    """Q-values of 2 actions from a 4-dim observation, one linear layer."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return {'logit': self.fc(x)}


def run_collector(cfg: Any, policy: Any, env: Any, calls: int) -> tuple:
    """`calls` StepCollector calls (eps 0.5) on `env`, which is closed after; (ctx, batches)."""
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import StepCollector
    ctx, batches = OnlineRLContext(collect_kwargs={'eps': 0.5}), []
    try:
        collector = StepCollector(cfg, policy.collect_mode, env)
        for _ in range(calls):
            collector(ctx)
            batches.append(ctx.trajectories)
    finally:
        env.close()
    return ctx, batches
