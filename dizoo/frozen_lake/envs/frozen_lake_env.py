"""FrozenLake as a registered ding env (`env.type='frozen_lake'`), configured as in DI-engine:
`env_id='FrozenLake-v1'`, `map_name` ('4x4' / '8x8') or a custom `desc`, `is_slippery`.

The agent sees its cell as a float32 one-hot vector (16 values on the 4x4 map), so an MLP
policy (DQN with `obs_shape=16`) plays it; actions are gymnasium's Discrete(4). A return of
1 means the goal was reached, hence `stop_value=1`.
"""
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.registry import ENV_REGISTRY


class OneHotCell(gymnasium.ObservationWrapper):
    """The Discrete(n) cell index as a float32 one-hot vector of length n."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        n = int(env.observation_space.n)
        self._eye = np.eye(n, dtype=np.float32)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(n, ), dtype=np.float32)

    def observation(self, observation: Any) -> np.ndarray:
        return self._eye[int(observation)]


@ENV_REGISTRY.register('frozen_lake')
class FrozenLakeEnv(DingEnvWrapper):
    config = dict(env_id='FrozenLake-v1', desc=None, map_name='4x4', is_slippery=False, save_replay_gif=False,
                  stop_value=1.0)

    def __init__(self, cfg: Any = None) -> None:
        cfg = dict(self.config, **(cfg or {}))
        if cfg['env_id'] != 'FrozenLake-v1':
            raise ValueError(f"FrozenLakeEnv: env_id must be 'FrozenLake-v1', got {cfg['env_id']!r}")
        if cfg.get('save_replay_gif'):
            raise ValueError("FrozenLakeEnv: save_replay_gif is not supported; set env.replay_path to record "
                             "evaluation videos instead")
        env = gymnasium.make('FrozenLake-v1', desc=cfg['desc'], map_name=cfg['map_name'],
                             is_slippery=bool(cfg['is_slippery']))
        super().__init__(OneHotCell(env), cfg)

    def __repr__(self) -> str:
        return f'FrozenLakeEnv({self._cfg.map_name}, slippery={self._cfg.is_slippery})'
