"""LunarLander as a registered ding env (`env.type='lunarlander'`).

`continuous=False`: 4 discrete engines actions; `continuous=True`: 2 throttles in [-1, 1].
Box2D is an optional dependency: installing it is `pip install "ding[box2d]"` (which pulls
`gymnasium[box2d]`); the error says so when it is missing. The 1000-step cap is a truncation.
"""
from typing import Any

import gymnasium

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.dicts import deep_merge
from ding.utils.registry import ENV_REGISTRY


def make_lunarlander(env_id: str = 'LunarLander-v3', continuous: bool = False) -> gymnasium.Env:
    try:
        return gymnasium.make(env_id, continuous=continuous)
    except (ImportError, gymnasium.error.DependencyNotInstalled) as err:
        raise ImportError(f'{env_id} needs Box2D: pip install "ding[box2d]" (or "gymnasium[box2d]"); {err}') from err


@ENV_REGISTRY.register('lunarlander')
class LunarLanderEnv(DingEnvWrapper):
    config = dict(env_id='LunarLander-v3', continuous=False)

    def __init__(self, cfg: Any = None) -> None:
        merged = deep_merge(self.default_config(), cfg or {})
        super().__init__(make_lunarlander(merged.env_id, merged.continuous), merged)

    def __repr__(self) -> str:
        return f'LunarLanderEnv({self._cfg.env_id}, continuous={self._cfg.continuous})'
