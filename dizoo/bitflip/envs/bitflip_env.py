"""Bit flipping (Andrychowicz et al. 2017, the HER paper's toy task), registered as `env.type='bitflip'`.

State and goal are `n_bits` random bits; action `i` flips bit `i`; the reward is 1 on the step
that makes the state equal the goal (which ends the episode), else 0. An episode lasts at most
`n_bits` steps, which is enough to reach any goal. The observation is the state followed by the
goal, float32 of shape `[2 * n_bits]`, so a goal-conditioned Q-network sees both; the goal half
is what `HerRewardModel` rewrites in hindsight.

Config as DI-engine's `BitFlipEnv`: `n_bits`. Reaching the step limit without the goal is a
time-limit truncation (`info['TimeLimit.truncated']`): a learner bootstraps through it.
"""
from typing import Any, Optional

import numpy as np
from gymnasium import spaces

from ding.envs.base_env import BaseEnv, BaseEnvTimestep
from ding.utils.registry import ENV_REGISTRY


@ENV_REGISTRY.register('bitflip')
class BitFlipEnv(BaseEnv):
    config = dict(n_bits=5)

    def __init__(self, cfg: Any = None) -> None:
        super().__init__(cfg)
        n_bits = self._cfg.n_bits
        if not isinstance(n_bits, (int, np.integer)) or isinstance(n_bits, bool) or n_bits < 1:
            raise ValueError(f'BitFlipEnv: n_bits must be a positive int, got {n_bits!r}')
        self._n_bits = int(n_bits)
        self._max_steps = self._n_bits
        self._observation_space = spaces.Box(low=0, high=1, shape=(2 * self._n_bits, ), dtype=np.float32)
        self._action_space = spaces.Discrete(self._n_bits)
        self._reward_space = spaces.Box(low=0.0, high=1.0, shape=(1, ), dtype=np.float32)
        self._seed: Optional[int] = None
        self._dynamic_seed = True
        self._rng = np.random.default_rng()
        self._state = np.zeros(self._n_bits, dtype=np.float32)
        self._goal = np.zeros(self._n_bits, dtype=np.float32)
        self._step_count = 0
        self._episode_return = 0.0

    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        self._seed = int(seed)
        self._dynamic_seed = dynamic_seed
        self._rng = np.random.default_rng(self._seed)

    def reset(self) -> np.ndarray:
        if self._seed is not None and not self._dynamic_seed:  # the same episode every time
            self._rng = np.random.default_rng(self._seed)
        self._step_count = 0
        self._episode_return = 0.0
        self._state = self._rng.integers(0, 2, self._n_bits).astype(np.float32)
        self._goal = self._state.copy()
        while np.array_equal(self._goal, self._state):  # an episode that starts solved teaches nothing
            self._goal = self._rng.integers(0, 2, self._n_bits).astype(np.float32)
        return self._observation()

    def step(self, action: Any) -> BaseEnvTimestep:
        bit = int(np.asarray(action).reshape(-1)[0])
        if not 0 <= bit < self._n_bits:
            raise ValueError(f'BitFlipEnv: action {bit} is outside [0, {self._n_bits})')
        self._state[bit] = 1.0 - self._state[bit]
        self._step_count += 1
        success = bool(np.array_equal(self._state, self._goal))
        reward = np.array([1.0 if success else 0.0], dtype=np.float32)
        self._episode_return += float(reward[0])
        timeout = not success and self._step_count >= self._max_steps
        info = {}
        if success or timeout:
            info['eval_episode_return'] = self._episode_return
        if timeout:
            info['TimeLimit.truncated'] = True
        return BaseEnvTimestep(self._observation(), reward, success or timeout, info)

    def _observation(self) -> np.ndarray:
        return np.concatenate([self._state, self._goal])

    def close(self) -> None:
        pass

    def random_action(self) -> np.ndarray:
        return np.array([self._rng.integers(self._n_bits)], dtype=np.int64)

    @property
    def observation_space(self) -> spaces.Space:
        return self._observation_space

    @property
    def action_space(self) -> spaces.Space:
        return self._action_space

    @property
    def reward_space(self) -> spaces.Space:
        return self._reward_space

    def __repr__(self) -> str:
        return f'BitFlipEnv(n_bits={self._n_bits})'
