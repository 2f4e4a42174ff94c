"""CartPole whose every step also runs a fixed amount of pure-Python work (`busy_loops`
iterations, ~0.5 ms of CPU on the reference 2-core machine at the default 11000).

Why: CartPole costs ~10 us per step, so moving it to subprocesses only adds IPC; real envs
(physics, games, simulators) cost hundreds of microseconds of CPU that holds the GIL. This
env makes that cost explicit and deterministic (a count of operations, not a wall-clock
spin), so subprocess and async collection can be measured against serial collection.
Dynamics, rewards and seeding are CartPole's own.
"""
import math
import warnings
from typing import Any

import gymnasium

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.registry import ENV_REGISTRY

DEFAULT_BUSY_LOOPS = 11000


class BusyStep(gymnasium.Wrapper):
    """Runs `busy_loops` iterations of Python arithmetic before each step."""

    def __init__(self, env: gymnasium.Env, busy_loops: int = DEFAULT_BUSY_LOOPS) -> None:
        super().__init__(env)
        self.busy_loops = int(busy_loops)

    def step(self, action: Any):
        burn_cpu(self.busy_loops)
        return self.env.step(action)


def burn_cpu(loops: int) -> float:
    x = 0.0
    sqrt = math.sqrt
    for i in range(loops):
        x += sqrt(i)
    return x


def make_slow_cartpole(env_id: str = 'CartPole-v1', busy_loops: int = DEFAULT_BUSY_LOOPS) -> gymnasium.Env:
    """The gymnasium env itself (for bare `gymnasium.vector` loops in benchmarks)."""
    with warnings.catch_warnings():  # CartPole-v0 is flagged outdated; kept on purpose
        warnings.simplefilter('ignore', DeprecationWarning)
        return BusyStep(gymnasium.make(env_id), busy_loops)


@ENV_REGISTRY.register('slow_cartpole')
class SlowCartPoleEnv(DingEnvWrapper):
    """`env.type='slow_cartpole'`; `cfg.env_id` as for CartPole, `cfg.busy_loops` the work."""
    config = dict(env_id='CartPole-v1', busy_loops=DEFAULT_BUSY_LOOPS)

    def __init__(self, cfg: Any = None) -> None:
        merged = dict(self.config, **(cfg or {}))
        super().__init__(make_slow_cartpole(merged['env_id'], merged['busy_loops']), cfg)

    def __repr__(self) -> str:
        return f'SlowCartPoleEnv({self._cfg.env_id}, busy_loops={self._cfg.busy_loops})'
