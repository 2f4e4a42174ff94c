"""`Sliding-v0`: `Moving-v0` (moving_env.py) with inertia, our stand-in for gym-hybrid's env of
that name. The agent carries a velocity vector: accelerate(a) adds max_acceleration * a along the
heading (the speed capped at max_speed), turn(t) rotates only the heading, so the agent keeps
sliding the way it went until it accelerates again; break takes break_value off the speed (a full
stop by default). Actions, observation (speed = |velocity|; the direction of motion is not in it,
as in gym-hybrid), rewards, walls and the 200-step limit are Moving-v0's."""
from typing import Any, Optional, Tuple

import numpy as np

from dizoo.gym_hybrid.envs.moving_env import ACCELERATE, BREAK, TURN, MovingEnv


class SlidingEnv(MovingEnv):

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._vel = np.zeros(2)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[np.ndarray, dict]:
        self._vel = np.zeros(2)
        return super().reset(seed=seed, options=options)

    def _apply(self, kind: int, args: np.ndarray) -> None:
        if kind == TURN:
            super()._apply(kind, args)  # the heading only
        elif kind == ACCELERATE:
            heading = np.array([np.cos(self._heading), np.sin(self._heading)])
            self._vel = self._vel + self.max_acceleration * float(np.clip(args[0], 0, 1)) * heading
            speed = np.linalg.norm(self._vel)
            if speed > self.max_speed:
                self._vel = self._vel * (self.max_speed / speed)
        elif kind == BREAK:
            speed = np.linalg.norm(self._vel)
            if speed > 0:
                self._vel = self._vel * (max(speed - self.break_value, 0.0) / speed)
        else:
            raise ValueError(f'SlidingEnv: action_type must be 0, 1 or 2, got {kind}')

    def _displacement(self) -> np.ndarray:
        return self._vel * self.delta_t

    def _speed_now(self) -> float:
        return float(np.linalg.norm(self._vel))

    def _halt(self) -> None:
        self._vel = np.zeros(2)
