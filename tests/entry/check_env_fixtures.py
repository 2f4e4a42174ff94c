"""Envs for `ding check-env`'s tests: one good env, and five that each break one rule."""
import random

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class LineWalk(gym.Env):
    """A correct env: walk left/right on a line of 10 cells, +1 at the right end."""
    observation_space = spaces.Box(0.0, 1.0, shape=(2, ), dtype=np.float32)
    action_space = spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.pos, self.t = int(self.np_random.integers(0, 5)), 0
        return self._obs(), {}

    def _obs(self):
        return np.array([self.pos / 9, self.t / 50], dtype=np.float32)

    def step(self, action):
        self.pos = min(9, max(0, self.pos + (1 if action == 1 else -1)))
        self.t += 1
        done = self.pos == 9
        return self._obs(), float(done), done, self.t >= 50, {}


class WrongShape(LineWalk):
    def _obs(self):
        return np.array([self.pos / 9, self.t / 50, 0.0], dtype=np.float32)


class WrongDtype(LineWalk):
    def _obs(self):
        return np.array([self.pos / 9, self.t / 50])  # float64 against a float32 space


class OldStepApi(LineWalk):
    def step(self, action):  # gym < 0.26: (obs, reward, done, info)
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, terminated or truncated, info


class IgnoresSeed(LineWalk):
    def _obs(self):  # noise from the global RNG, which reset(seed=...) does not reach
        return np.array([self.pos / 9, random.random()], dtype=np.float32)


class NanAfterStep(LineWalk):
    def _obs(self):
        obs = super()._obs()
        if self.t == 3:
            obs[0] = np.nan
        return obs


def make_good():
    return LineWalk()
