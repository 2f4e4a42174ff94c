"""`D4RLEnv(cfg)` (env type 'd4rl'): the MuJoCo env behind a D4RL env id, e.g.
'halfcheetah-medium-v2' -> gymnasium's 'HalfCheetah-v5' (the dataset part of the id only
names the data). cfg keys as DI-engine's: `env_id`, `use_act_scale` (actions in [-1, 1]), and
`norm_obs.use_norm` with `norm_obs.offline_stats.use_offline_stats`: both True, and an offline run
trains and evaluates on observations normalised by the dataset's mean and std (read by
`ding.data.offline_dataset.create_dataset` and `ding.entry.serial_offline`, not by the env, so
the config of every offline policy declares them: ding/config/common_keys.py).

The dataset of an env id is a local D4RL-layout hdf5 file, `ding.data.offline_dataset.d4rl_dataset_path(env_id)`:
`$D4RL_DATASET_DIR/<env_id>.hdf5` (default `~/.d4rl/datasets`, where d4rl keeps its
downloads). `create_dataset` reads it when a config names `env.env_id` and no data_path.
"""
from typing import Any

from ding.envs.ding_env_wrapper import DingEnvWrapper
from ding.utils.dicts import deep_merge
from ding.utils.registry import ENV_REGISTRY
from dizoo.mujoco.envs.mujoco_env import make_mujoco

DOMAINS = {'halfcheetah': 'HalfCheetah-v5', 'hopper': 'Hopper-v5', 'walker2d': 'Walker2d-v5', 'ant': 'Ant-v5'}


def gymnasium_env_id(env_id: str) -> str:
    """'hopper-medium-v2' -> 'Hopper-v5'; ValueError naming the known domains otherwise."""
    domain = env_id.split('-')[0].lower()
    if domain not in DOMAINS:
        raise ValueError(f'D4RL env id {env_id!r}: unknown domain {domain!r}; known: {sorted(DOMAINS)}')
    return DOMAINS[domain]


@ENV_REGISTRY.register('d4rl')
class D4RLEnv(DingEnvWrapper):
    config = dict(env_id='hopper-medium-v2', use_act_scale=True)

    def __init__(self, cfg: Any = None) -> None:
        merged = deep_merge(self.default_config(), cfg or {})
        super().__init__(make_mujoco(gymnasium_env_id(merged.env_id), merged.use_act_scale), merged)

    def __repr__(self) -> str:
        return f'D4RLEnv({self._cfg.env_id})'
