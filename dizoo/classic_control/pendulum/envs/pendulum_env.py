"""Pendulum as a registered ding env (`env.type='pendulum'`).

Why `act_scale`: continuous policies here act in [-1, 1] (tanh actors). With
`act_scale=True` (the default) the env takes actions in [-1, 1] and maps them linearly to
Pendulum's torque bounds [-2, 2], and its `action_space` says [-1, 1], so the random
warm-up policy samples the same range the learned one acts in. With `act_scale=False`
actions go through unchanged (a torque).

Pendulum never terminates; its 200-step cap is a truncation, so learners keep bootstrapping.
"""
from typing import Any

import gymnasium
import numpy as np
from gymnasium.wrappers import RescaleAction

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.dicts import deep_merge
from ding.utils.registry import ENV_REGISTRY


def make_pendulum(env_id: str = 'Pendulum-v1', act_scale: bool = True) -> gymnasium.Env:
    """The gymnasium env, taking actions in [-1, 1] when `act_scale`."""
    env = gymnasium.make(env_id)
    if not act_scale:
        return env
    shape = env.action_space.shape
    return RescaleAction(env, np.full(shape, -1.0, np.float32), np.full(shape, 1.0, np.float32))


@ENV_REGISTRY.register('pendulum')
class PendulumEnv(DingEnvWrapper):
    """`PendulumEnv(cfg)`; cfg keys: `env_id` ('Pendulum-v1'), `act_scale` (True), and the
    pipeline keys every env carries (`collector_env_num`, `evaluator_env_num`,
    `n_evaluator_episode`, `stop_value`)."""
    config = dict(env_id='Pendulum-v1', act_scale=True, replay_path=None, stop_value=-250)

    def __init__(self, cfg: Any = None) -> None:
        merged = deep_merge(self.default_config(), cfg or {})
        # `replay_path` is read by `ding -m eval` (videos of evaluation episodes), not by the env.
        super().__init__(make_pendulum(merged.env_id, merged.act_scale), merged)

    def __repr__(self) -> str:
        return f'PendulumEnv({self._cfg.env_id}, act_scale={self._cfg.act_scale})'
