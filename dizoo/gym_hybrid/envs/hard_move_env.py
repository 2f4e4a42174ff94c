"""`HardMove-v0`: our stand-in for gym-hybrid's env of that name, where the discrete choice is
combinatorial. The agent has `num_actuators` (n, default 4) thrusters pointing at angles 2 pi k / n;
the action is (subset, powers): `action_type` in [0, 2^n) switches on thruster k when its bit k is
set, `action_args` (n values in [-1, 1]) gives each thruster's signed power (the unused ones are
ignored). Each step the agent moves by max_speed * delta_t * (the sum of the active thrusters'
vectors), that sum capped at length 1; no inertia, so type 0 (all off) stands still.
Task, rewards, walls, step limit and the 10-d observation are Moving-v0's (moving_env.py), with
the heading read as the direction of the last movement."""
from typing import Any, Optional, Tuple

import numpy as np
from gymnasium import spaces

from dizoo.gym_hybrid.envs.moving_env import MovingEnv, _parse


class HardMoveEnv(MovingEnv):

    def __init__(self, num_actuators: int = 4, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(num_actuators, bool) or not isinstance(num_actuators, int) or not 1 <= num_actuators <= 16:
            raise ValueError(f'HardMoveEnv: num_actuators must be an int in [1, 16], got {num_actuators!r}')
        self.num_actuators = n = num_actuators
        angles = 2 * np.pi * np.arange(n) / n
        thrusters = np.stack([np.cos(angles), np.sin(angles)], axis=1)  # [n, 2] unit vectors
        self._thrusters = np.where(np.abs(thrusters) < 1e-12, 0.0, thrusters)  # opposite ones cancel exactly
        self.action_space = spaces.Tuple((spaces.Discrete(2 ** n),
                                          spaces.Box(-np.ones(n, np.float32), np.ones(n, np.float32))))
        self._move = np.zeros(2)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[np.ndarray, dict]:
        self._move = np.zeros(2)
        return super().reset(seed=seed, options=options)

    def _parse(self, action: Any) -> Tuple[int, np.ndarray]:
        return _parse(action, self.num_actuators, f'{self.num_actuators} thruster powers')

    def _apply(self, kind: int, args: np.ndarray) -> None:
        if not 0 <= kind < 2 ** self.num_actuators:
            raise ValueError(f'HardMoveEnv: action_type must be in [0, {2 ** self.num_actuators}), got {kind}')
        active = (kind >> np.arange(self.num_actuators)) & 1
        push = (active * np.clip(args, -1, 1)) @ self._thrusters
        length = np.linalg.norm(push)
        self._move = push / length if length > 1 else push
        if length > 0:
            self._heading = float(np.arctan2(push[1], push[0]) % (2 * np.pi))

    def _displacement(self) -> np.ndarray:
        return self.max_speed * self.delta_t * self._move

    def _speed_now(self) -> float:
        return float(self.max_speed * np.linalg.norm(self._move))

    def _halt(self) -> None:
        self._move = np.zeros(2)
