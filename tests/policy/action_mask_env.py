"""An env where some actions are invalid, for the action-masking tests: each step a random
subset of the 8 actions is allowed (the target always among them); the obs is DI-engine's
`{'observation': one-hot target, 'action_mask': allowed}`. The target gives +1, another allowed
action 0, a forbidden one -10 and ends the episode. Episodes last 10 steps, so the best return
is 10. `MaskedTargets.invalid_taken` counts forbidden actions over every instance."""
import gymnasium as gym
import numpy as np
from gymnasium import spaces

N_ACTIONS = 8
EPISODE_STEPS = 10
INVALID_PENALTY = -10.0


class MaskedTargets(gym.Env):
    invalid_taken = 0  # over all instances: the env managers of a test run in its process

    def __init__(self):
        self.observation_space = spaces.Dict({
            'observation': spaces.Box(0.0, 1.0, shape=(N_ACTIONS, ), dtype=np.float32),
            'action_mask': spaces.MultiBinary(N_ACTIONS),
        })
        self.action_space = spaces.Discrete(N_ACTIONS)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.steps = 0
        return self._new_state(), {}

    def _new_state(self):
        self.target = int(self.np_random.integers(N_ACTIONS))
        self.mask = (self.np_random.random(N_ACTIONS) < 0.5).astype(np.int8)
        self.mask[self.target] = 1
        onehot = np.zeros(N_ACTIONS, np.float32)
        onehot[self.target] = 1.0
        return {'observation': onehot, 'action_mask': self.mask.copy()}

    def step(self, action):
        action = int(np.asarray(action).reshape(-1)[0])
        self.steps += 1
        if not self.mask[action]:
            MaskedTargets.invalid_taken += 1
            return self._new_state(), INVALID_PENALTY, True, False, {}
        reward = 1.0 if action == self.target else 0.0
        return self._new_state(), reward, False, self.steps >= EPISODE_STEPS, {}
