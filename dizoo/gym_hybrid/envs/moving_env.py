"""`Moving-v0`, a small stand-in for gym-hybrid's env (not on PyPI): hybrid actions on a 2-D field.

The agent (position, heading, speed) must stop inside a target circle of radius 0.1. Each step
takes one parameterised action, then the agent moves speed * delta_t along its heading:
- 0 accelerate(a): speed += max_acceleration * clip(a, 0, 1), at most max_speed;
- 1 turn(t): heading += max_turn * clip(t, -1, 1);
- 2 break: speed -= break_value (default: a full stop), not below 0 (the arg is unused).
The action is gym-hybrid's `(action_type, [accel, turn])` (Tuple(Discrete(3), Box([0, -1], [1, 1])))
or DI-engine's dict `{'action_type', 'action_args'}`. Reward per step: the distance gained minus
0.001; stopping (speed 0) inside the target ends the episode with +1 on top; the 200-step limit
ends it with -1 (a truncation). The field [-1, 1]^2 has walls: reaching its edge stops the agent there.
(gym-hybrid instead ends the episode with -1 when the agent leaves the field, `walls=False`: on a CPU
budget that made PDQN settle on standing still in some seeds, so walls are the default here.)
Observation (float32 [10]): x, y, speed, cos(heading), sin(heading), target x, target y, distance (the
first 8 as gym-hybrid), then cos and sin of the target's bearing relative to the heading (in place of
gym-hybrid's inside-target flag and step fraction: they make the turn argument learnable in a CPU-sized run).
The constants differ from gym-hybrid's (whose source we do not copy) but the task, the action layout
and the reward's shape are the same: a successful episode returns about 1 + the initial distance.
"""
from typing import Any, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

ACCELERATE, TURN, BREAK = 0, 1, 2


class MovingEnv(gymnasium.Env):
    metadata = {'render_modes': []}

    def __init__(self, max_turn: float = np.pi / 2, max_acceleration: float = 0.5, max_speed: float = 1.0,
                 break_value: float = 1.0, delta_t: float = 0.1, max_step: int = 200, penalty: float = 0.001,
                 field_size: float = 1.0, target_radius: float = 0.1, walls: bool = True) -> None:
        self.max_turn, self.max_acceleration, self.max_speed = max_turn, max_acceleration, max_speed
        self.break_value, self.delta_t, self.max_step, self.penalty = break_value, delta_t, max_step, penalty
        self.field_size, self.target_radius = field_size, target_radius
        self.walls = walls  # True: the field's edge stops the agent instead of ending the episode with -1
        self.action_space = spaces.Tuple((spaces.Discrete(3),
                                          spaces.Box(np.array([0., -1.], np.float32), np.array([1., 1.], np.float32))))
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(10, ), dtype=np.float32)
        self._pos = np.zeros(2)
        self._target = np.zeros(2)
        self._heading = 0.0
        self._speed = 0.0
        self._step = 0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        limit = self.field_size - self.target_radius
        self._target = self.np_random.uniform(-limit, limit, size=2)
        self._pos = self.np_random.uniform(-self.field_size, self.field_size, size=2)
        self._heading = float(self.np_random.uniform(0, 2 * np.pi))
        self._speed = 0.0
        self._step = 0
        return self._obs(), {}

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, dict]:
        kind, args = self._parse(action)
        self._apply(kind, args)
        last = self._distance()
        self._pos = self._pos + self._displacement()
        self._step += 1
        if self.walls and np.abs(self._pos).max() > self.field_size:
            self._pos = np.clip(self._pos, -self.field_size, self.field_size)
            self._halt()
        terminated = truncated = False
        if self._distance() < self.target_radius and self._speed_now() == 0:
            reward, terminated = last - self._distance() - self.penalty + 1.0, True
        elif np.abs(self._pos).max() > self.field_size:
            reward, terminated = -1.0, True
        elif self._step >= self.max_step:
            reward, truncated = -1.0, True
        else:
            reward = last - self._distance() - self.penalty
        return self._obs(), float(reward), terminated, truncated, {}

    # the motion model: Sliding-v0 and HardMove-v0 (sliding_env.py, hard_move_env.py) replace these
    def _parse(self, action: Any) -> Tuple[int, np.ndarray]:
        return _parse(action)

    def _apply(self, kind: int, args: np.ndarray) -> None:
        if kind == ACCELERATE:
            self._speed = min(self._speed + self.max_acceleration * float(np.clip(args[0], 0, 1)), self.max_speed)
        elif kind == TURN:
            self._heading = (self._heading + self.max_turn * float(np.clip(args[1], -1, 1))) % (2 * np.pi)
        elif kind == BREAK:
            self._speed = max(self._speed - self.break_value, 0.0)
        else:
            raise ValueError(f'{type(self).__name__}: action_type must be 0, 1 or 2, got {kind}')

    def _displacement(self) -> np.ndarray:
        return self._speed * self.delta_t * np.array([np.cos(self._heading), np.sin(self._heading)])

    def _speed_now(self) -> float:
        return self._speed

    def _halt(self) -> None:
        self._speed = 0.0

    def _distance(self) -> float:
        return float(np.linalg.norm(self._pos - self._target))

    def _obs(self) -> np.ndarray:
        dx, dy = self._target - self._pos
        bearing = np.arctan2(dy, dx) - self._heading  # where the target lies, seen from the agent's heading
        return np.array([*self._pos, self._speed_now(), np.cos(self._heading), np.sin(self._heading), *self._target,
                         self._distance(), np.cos(bearing), np.sin(bearing)], dtype=np.float32)


def _parse(action: Any, n_args: int = 2, what: str = 'acceleration, rotation') -> Tuple[int, np.ndarray]:
    """(type, args) from a dict {'action_type', 'action_args'} or a pair (type, args)."""
    if isinstance(action, dict) or hasattr(action, 'keys'):
        kind, args = action['action_type'], action['action_args']
    else:
        kind, args = action
    args = np.asarray(args, dtype=np.float64).reshape(-1)
    if args.shape != (n_args, ):
        raise ValueError(f'action_args must hold {n_args} values ({what}), got shape {args.shape}')
    return int(np.asarray(kind).reshape(())), args


class HybridActionScale(gymnasium.ActionWrapper):
    """DI-engine's `act_scale` for hybrid actions: the policy's args in [-1, 1] are mapped affinely onto
    the args Box (Moving-v0: acceleration [0, 1], rotation [-1, 1]); the type passes through."""

    def action(self, action: Any) -> Tuple[int, np.ndarray]:
        box = self.env.action_space[1]
        kind, args = _parse(action, box.shape[0], f'{box.shape[0]} action args')
        scaled = box.low + (np.clip(args, -1, 1) + 1) * 0.5 * (box.high - box.low)
        return kind, scaled.astype(np.float32)
