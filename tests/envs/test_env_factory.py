"""Config-driven construction: env settings from ENV_REGISTRY, managers from their type."""
import ding.envs
from ding.envs import BaseEnvManager, BaseEnvManagerV2, create_env_manager, get_vec_env_setting
from dizoo.classic_control.cartpole.envs.cartpole_env import CartPoleEnv


def test_get_vec_env_setting_imports_and_splits_cfgs():
    cfg = {'type': 'cartpole', 'import_names': ['dizoo.classic_control.cartpole.envs.cartpole_env'],
           'collector_env_num': 3, 'evaluator_env_num': 2, 'env_id': 'CartPole-v1'}
    env_cls, collector_cfgs, evaluator_cfgs = get_vec_env_setting(cfg)
    assert env_cls is CartPoleEnv and len(collector_cfgs) == 3 and len(evaluator_cfgs) == 2
    assert get_vec_env_setting(cfg, collect=False)[1] == []


def test_create_env_manager_by_type():
    fns = [lambda: CartPoleEnv({'env_id': 'CartPole-v1'})] * 2
    v1 = create_env_manager({'type': 'base'}, fns)
    v2 = create_env_manager({'type': 'base_v2', 'episode_num': 2}, fns)
    assert type(v1) is BaseEnvManager and type(v2) is BaseEnvManagerV2 and v2.env_num == 2
    assert v2._cfg.episode_num == 2


def test_every_declared_export_of_this_floor_resolves():
    ours = [n for n, mod in ding.envs._EXPORTS.items() if 'subprocess' not in mod]
    assert all(getattr(ding.envs, n) is not None for n in ours)
