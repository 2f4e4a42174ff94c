"""The custom env of docs/custom_env.md: walk a corridor to the end its last obs entry names.

A plain gymnasium 1.x env, nothing ding-specific: `ding check-env
dizoo.corridor.envs.corridor_env:make_env` checks it, and `DingEnvWrapper` hands it to a pipeline.
"""
import gymnasium as gym
import numpy as np
from gymnasium import spaces


class Corridor(gym.Env):
    """Obs: the agent's cell (one-hot over `length` cells), then 1.0 if the goal is the right
    end, 0.0 if the left. Actions: 0 left, 1 right. Reaching the goal end gives +1, the other
    end -1 (both end the episode), any other step -0.02; truncated after `max_steps`."""

    def __init__(self, length: int = 8, max_steps: int = 40):
        self.length, self.max_steps = length, max_steps
        self.observation_space = spaces.Box(0.0, 1.0, shape=(length + 1, ), dtype=np.float32)
        self.action_space = spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)  # seeds self.np_random: the same seed gives the same episode
        self.cell = int(self.np_random.integers(self.length // 2 - 1, self.length // 2 + 1))
        self.goal_right = bool(self.np_random.integers(0, 2))
        self.steps = 0
        return self._obs(), {}

    def step(self, action):
        self.cell = min(self.length - 1, max(0, self.cell + (1 if action == 1 else -1)))
        self.steps += 1
        at_end = self.cell in (0, self.length - 1)
        if at_end:
            reward = 1.0 if (self.cell == self.length - 1) == self.goal_right else -1.0
        else:
            reward = -0.02
        return self._obs(), reward, at_end, self.steps >= self.max_steps, {}

    def _obs(self) -> np.ndarray:
        obs = np.zeros(self.length + 1, dtype=np.float32)
        obs[self.cell] = 1.0
        obs[-1] = float(self.goal_right)
        return obs


def make_env() -> Corridor:
    return Corridor()
