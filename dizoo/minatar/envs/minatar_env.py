"""`MinAtarEnv` (`env.type='minatar'`): a MinAtar game through the package's own gymnasium env.

`env_id` is one of MinAtar's ids ('MinAtar/Breakout-v1', ...; v1 uses each game's minimal
action set, v0 all 6 actions). Observations are the game's 10x10xC binary grid moved to
channels first, [C, 10, 10] (C: Breakout 4, SpaceInvaders 6, Asterix 4, Freeway 7, Seaquest
10). `sticky_action_prob` (0.1) and `difficulty_ramping` (True) are MinAtar's own defaults.

`max_episode_steps` (10,000) truncates an episode (`info['truncated']`, so learners bootstrap
through it). MinAtar sets no limit, and some policies never end a game: a Seaquest sub that
stays at the surface is never hit and never loses oxygen, so an evaluator would wait for ever.
"""
from typing import Any

import gymnasium

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.envs.env_wrappers.grid_wrappers import ChannelsFirstFloatWrapper
from ding.utils.registry import ENV_REGISTRY

GAMES = ('Breakout', 'SpaceInvaders', 'Asterix', 'Freeway', 'Seaquest')
MINATAR_IDS = tuple(f'MinAtar/{g}-v{v}' for g in GAMES for v in (0, 1))


def make_minatar(env_id: str, sticky_action_prob: float = 0.1, difficulty_ramping: bool = True,
                 max_episode_steps: int = 10_000) -> gymnasium.Env:
    """MinAtar's gymnasium env `env_id` (observations [10, 10, C] bool, channels last)."""
    if env_id not in MINATAR_IDS:
        raise ValueError(f'MinAtar env_id must be one of {list(MINATAR_IDS)}; got {env_id!r}')
    try:
        import minatar.gym
    except ImportError as err:
        raise ImportError('MinAtar envs need the minatar package, which is not installed; install it with: '
                          'pip install "ding[minatar]"') from err
    if env_id not in gymnasium.registry:
        minatar.gym.register_envs()
    return gymnasium.make(env_id, sticky_action_prob=sticky_action_prob, difficulty_ramping=difficulty_ramping,
                          max_episode_steps=int(max_episode_steps))


@ENV_REGISTRY.register('minatar')
class MinAtarEnv(DingEnvWrapper):
    config = dict(env_id='MinAtar/Breakout-v1', sticky_action_prob=0.1, difficulty_ramping=True,
                  max_episode_steps=10_000)

    def __init__(self, cfg: Any = None, caller: str = 'collector') -> None:
        cfg = dict(self.config, **(cfg or {}))
        env = make_minatar(cfg['env_id'], cfg['sticky_action_prob'], cfg['difficulty_ramping'],
                           cfg['max_episode_steps'])
        super().__init__(ChannelsFirstFloatWrapper(env), cfg, caller=caller)

    def clone(self, caller: str = 'collector') -> 'MinAtarEnv':
        return MinAtarEnv(self._cfg, caller)

    def __repr__(self) -> str:
        return f'MinAtarEnv({self._cfg.env_id})'
