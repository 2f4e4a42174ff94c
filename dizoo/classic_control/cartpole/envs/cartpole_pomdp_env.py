"""POMDP CartPole (`env.type='cartpole_pomdp'`): CartPole with the two velocities masked.

The agent sees only the cart position and the pole angle (obs [x, theta], 2 floats). One
observation cannot tell which way the pole is moving, so a memoryless policy (DQN) cannot
balance it for long; a recurrent one (R2D2's LSTM) can infer the velocities from the history.
`cfg.env_id` picks CartPole-v0 (cap 200) or CartPole-v1 (cap 500), as for `cartpole`.
"""
import warnings
from typing import Any

import gymnasium
import numpy as np

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.registry import ENV_REGISTRY
from dizoo.classic_control.cartpole.envs.cartpole_env import CARTPOLE_IDS

VISIBLE = (0, 2)  # cart position and pole angle; 1 and 3 are the velocities


class MaskVelocity(gymnasium.ObservationWrapper):
    """Keeps CartPole's position entries, drops its velocity entries."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        space = env.observation_space
        self.observation_space = gymnasium.spaces.Box(space.low[list(VISIBLE)], space.high[list(VISIBLE)],
                                                      dtype=np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return np.asarray(observation, dtype=np.float32)[list(VISIBLE)]


def make_pomdp_cartpole(env_id: str = 'CartPole-v0') -> gymnasium.Env:
    if env_id not in CARTPOLE_IDS:
        raise ValueError(f'POMDP CartPole: env_id must be one of {CARTPOLE_IDS}, got {env_id!r}')
    with warnings.catch_warnings():  # gymnasium flags v0 as outdated; we keep it on purpose
        warnings.simplefilter('ignore', DeprecationWarning)
        return MaskVelocity(gymnasium.make(env_id))


@ENV_REGISTRY.register('cartpole_pomdp')
class CartPolePOMDPEnv(DingEnvWrapper):
    config = dict(env_id='CartPole-v0')

    def __init__(self, cfg: Any = None) -> None:
        super().__init__(make_pomdp_cartpole((cfg or {}).get('env_id', self.config['env_id'])), cfg)

    def __repr__(self) -> str:
        return f'CartPolePOMDPEnv({self._cfg.env_id})'
