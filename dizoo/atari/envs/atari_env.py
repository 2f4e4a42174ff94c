"""`AtariEnv` (`env.type='atari'`): an ALE game with DI-engine's DeepMind wrapper stack.

DI-engine's cfg keys: `env_id` (e.g. 'PongNoFrameskip-v4'), `frame_stack` and `is_train`
(episodic life and reward clipping for training envs only; the env managers' collector and
evaluator configs set it). Ours beside them: `repeat_action_probability` (sticky actions,
0 as in the v4 ids; 0.25 is the Machado et al. protocol), `noop_max`, `frame_skip` and
`scale`. Observations are float32 [frame_stack, 84, 84] in [0, 1] (DI-engine's), or with
`scale=False` the uint8 pixels themselves, which the models' conv encoder divides by 255: the
same network input, with a quarter of the bytes through env workers, replay and Ray.
"""
from typing import Any

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.registry import ENV_REGISTRY
from dizoo.atari.envs.atari_wrappers import deepmind_wrapper_specs, make_ale


@ENV_REGISTRY.register('atari')
class AtariEnv(DingEnvWrapper):
    config = dict(env_id='PongNoFrameskip-v4', frame_stack=4, is_train=True, repeat_action_probability=0.0,
                  noop_max=30, frame_skip=4, scale=True, replay_path=None)

    def __init__(self, cfg: Any = None, caller: str = 'collector') -> None:
        env_id = (cfg or {}).get('env_id', self.config['env_id'])
        sticky = (cfg or {}).get('repeat_action_probability', self.config['repeat_action_probability'])
        super().__init__(make_ale(env_id, sticky), cfg, caller=caller)

    def _wrapper_specs(self) -> list:
        """DI-engine's `wrap_deepmind` chain in place of `cfg.env_wrapper`."""
        train = self._caller != 'evaluator'
        cfg = self._cfg
        return deepmind_wrapper_specs(self._raw_env.unwrapped.get_action_meanings(), cfg.frame_stack,
                                      episode_life=train, clip_rewards=train, noop_max=cfg.noop_max,
                                      frame_skip=cfg.frame_skip, scale=cfg.scale)

    def clone(self, caller: str = 'collector') -> 'AtariEnv':
        return AtariEnv(self._cfg, caller)

    def __repr__(self) -> str:
        return f'AtariEnv({self._cfg.env_id})'
