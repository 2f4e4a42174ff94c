"""CartPole as a registered ding env (`env.type='cartpole'`).

`cfg.env_id` picks the gymnasium version: 'CartPole-v0' (episodes capped at 200 steps,
solved at 195, the DI-engine default) or 'CartPole-v1' (cap 500, solved at 475). The cap is
a truncation, so learners keep bootstrapping through it.
"""
import warnings
from typing import Any

import gymnasium

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.registry import ENV_REGISTRY

CARTPOLE_IDS = ('CartPole-v0', 'CartPole-v1')


@ENV_REGISTRY.register('cartpole')
class CartPoleEnv(DingEnvWrapper):
    config = dict(env_id='CartPole-v0', replay_path=None)

    def __init__(self, cfg: Any = None) -> None:
        env_id = (cfg or {}).get('env_id', self.config['env_id'])
        if env_id not in CARTPOLE_IDS:
            raise ValueError(f'CartPoleEnv: env_id must be one of {CARTPOLE_IDS}, got {env_id!r}')
        with warnings.catch_warnings():  # gymnasium flags v0 as outdated; we keep it on purpose
            warnings.simplefilter('ignore', DeprecationWarning)
            env = gymnasium.make(env_id)
        # `replay_path` is read by `ding -m eval` (videos of evaluation episodes), as DI-engine's eval
        # entry reads it; training envs record nothing, as in DI-engine.
        super().__init__(env, cfg)

    def __repr__(self) -> str:
        return f'CartPoleEnv({self._cfg.env_id})'
