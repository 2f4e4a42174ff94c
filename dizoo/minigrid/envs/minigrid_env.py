"""`MiniGridEnv` (`env.type='minigrid'`): a MiniGrid env with flat or image observations.

DI-engine's cfg keys: `env_id` (e.g. 'MiniGrid-DoorKey-5x5-v0'), `flat_obs` and `max_step`.
- `flat_obs=True`: DI-engine's `FlatObsWrapper`, the agent's 7x7x3 view flattened and the
  mission string one-hot encoded, float32 [2835] (DI-engine's minigrid `obs_shape`).
- `flat_obs=False`: the 7x7x3 view alone as float32 [3, 7, 7] (object, colour, state codes)
  for a conv encoder (`ChannelsFirstFloatWrapper`; ding/model/conv_encoders.py picks 3x3 convs).
`max_step` caps an episode (a truncation); None keeps the env's own cap (DoorKey-5x5: 250).
The reward is MiniGrid's, 1 - 0.9 * steps / max_steps on reaching the goal, else 0.
"""
from typing import Any, Optional

import gymnasium

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.envs.env_wrappers.grid_wrappers import ChannelsFirstFloatWrapper
from ding.envs.env_wrappers.step_wrappers import FlatObsWrapper
from ding.utils.registry import ENV_REGISTRY


def make_minigrid(env_id: str, flat_obs: bool = True, max_step: Optional[int] = None) -> gymnasium.Env:
    """The MiniGrid env `env_id` with flat (float32 [2835]) or image (float32 [3, 7, 7]) observations."""
    try:
        import minigrid  # noqa: F401  (importing it registers the MiniGrid-* ids)
    except ImportError as err:
        raise ImportError('MiniGrid envs need the minigrid package, which is not installed; install it with: '
                          'pip install "ding[minigrid]"') from err
    if not env_id.startswith('MiniGrid-') or env_id not in gymnasium.registry:
        raise ValueError(f'unknown MiniGrid env_id {env_id!r}; e.g. "MiniGrid-DoorKey-5x5-v0"')
    env = gymnasium.make(env_id, **({} if max_step is None else {'max_steps': int(max_step)}))
    return FlatObsWrapper(env) if flat_obs else ChannelsFirstFloatWrapper(env, key='image')


@ENV_REGISTRY.register('minigrid')
class MiniGridEnv(DingEnvWrapper):
    config = dict(env_id='MiniGrid-DoorKey-5x5-v0', flat_obs=True, max_step=None)

    def __init__(self, cfg: Any = None, caller: str = 'collector') -> None:
        cfg = dict(self.config, **(cfg or {}))
        super().__init__(make_minigrid(cfg['env_id'], cfg['flat_obs'], cfg['max_step']), cfg, caller=caller)

    def clone(self, caller: str = 'collector') -> 'MiniGridEnv':
        return MiniGridEnv(self._cfg, caller)

    def __repr__(self) -> str:
        return f'MiniGridEnv({self._cfg.env_id})'
