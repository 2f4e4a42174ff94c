"""`env.type='gym_hybrid'`: DI-engine's GymHybridEnv config (`env_id`, `act_scale`, and
`num_actuators` for HardMove-v0, default 4) over our stand-ins `Moving-v0`, `Sliding-v0` and
`HardMove-v0` (envs/*.py). Actions are DI-engine's `{'action_type', 'action_args'}`."""
from typing import Any, List

import numpy as np

import dizoo.gym_hybrid  # noqa: F401  (registers Moving-v0 with gymnasium)
from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.registry import ENV_REGISTRY
from dizoo.gym_hybrid.envs.moving_env import HybridActionScale


@ENV_REGISTRY.register('gym_hybrid')
class GymHybridEnv(DingEnvWrapper):
    default_env_id = ['Sliding-v0', 'Moving-v0', 'HardMove-v0']
    config = dict(env_id='Moving-v0', act_scale=True)

    def __init__(self, cfg: Any = None, **kwargs: Any) -> None:
        cfg = dict(cfg or {})
        env_id = cfg.get('env_id', 'Moving-v0')
        if env_id not in self.default_env_id:
            raise ValueError(f'gym_hybrid: env_id must be one of {self.default_env_id}, got {env_id!r}')
        if cfg.get('num_actuators') is not None:
            if env_id != 'HardMove-v0':
                raise ValueError(f'gym_hybrid: num_actuators is a HardMove-v0 setting, not {env_id}\'s')
            cfg['env_kwargs'] = dict(cfg.get('env_kwargs') or {}, num_actuators=cfg['num_actuators'])
        super().__init__(None, cfg, **kwargs)

    def _wrapper_specs(self) -> List[Any]:
        # the Box-only ActionScaleWrapper cannot take a hybrid action: scale the args ourselves
        act_scale, self._cfg.act_scale = self._cfg.act_scale, False
        specs = super()._wrapper_specs()
        self._cfg.act_scale = act_scale
        return specs + ([HybridActionScale] if act_scale else [])

    def random_action(self) -> dict:
        kind, args = self.action_space.sample()
        return {'action_type': np.int64(kind), 'action_args': args}

    def __repr__(self) -> str:
        return f'GymHybridEnv({self._cfg.env_id}, act_scale={self._cfg.act_scale})'
