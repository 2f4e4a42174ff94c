"""MuJoCo locomotion envs (gymnasium's HalfCheetah-v5, Hopper-v5, ...) as a registered ding
env (`env.type='mujoco'`). Needs the optional extra: `pip install "ding[mujoco]"`.

As for Pendulum, `act_scale=True` makes the env take actions in [-1, 1] (what the tanh actors
output) and map them to the env's bounds; for HalfCheetah and Hopper the bounds already are
[-1, 1]. Falling over (Hopper) is a termination; the 1000-step cap is a truncation.
"""
import importlib
from typing import Any

import numpy as np

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.dicts import deep_merge
from ding.utils.registry import ENV_REGISTRY

MUJOCO_EXTRA_HINT = 'MuJoCo envs need the mujoco extra: pip install "ding[mujoco]" (or "gymnasium[mujoco]")'


def make_mujoco(env_id: str, act_scale: bool = True) -> Any:
    """`gymnasium.make(env_id)`, taking actions in [-1, 1] when `act_scale`; ImportError naming
    the extra when mujoco is not installed."""
    import gymnasium
    from gymnasium.error import DependencyNotInstalled
    try:
        env = gymnasium.make(env_id)
    except DependencyNotInstalled as err:
        raise ImportError(f'{MUJOCO_EXTRA_HINT} ({err})') from None
    space = env.action_space
    if not act_scale or (np.all(space.low == -1.0) and np.all(space.high == 1.0)):
        return env
    from gymnasium.wrappers import RescaleAction
    return RescaleAction(env, np.full(space.shape, -1.0, np.float32), np.full(space.shape, 1.0, np.float32))


def mujoco_available() -> bool:
    """Whether the mujoco extra is installed (for skipping tests and benchmarks)."""
    try:
        importlib.import_module('mujoco')
    except ImportError:
        return False
    return True


@ENV_REGISTRY.register('mujoco')
class MujocoEnv(DingEnvWrapper):
    """`MujocoEnv(cfg)`; cfg keys: `env_id` ('HalfCheetah-v5'), `act_scale` (True) and the
    pipeline keys every env carries."""
    config = dict(env_id='HalfCheetah-v5', act_scale=True)

    def __init__(self, cfg: Any = None) -> None:
        merged = deep_merge(self.default_config(), cfg or {})
        super().__init__(make_mujoco(merged.env_id, merged.act_scale), merged)

    def __repr__(self) -> str:
        return f'MujocoEnv({self._cfg.env_id})'
