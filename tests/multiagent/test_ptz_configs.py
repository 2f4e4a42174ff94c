"""The dizoo petting_zoo MAPPO configs compile (DI-engine's keys) and drive their env and policy."""
import pytest

from ding.config import compile_config
from ding.data.batch import Batch
from ding.model import MAVAC
from ding.policy import MAPPOPolicy, PPOPolicy
from dizoo.petting_zoo.envs import PettingZooEnv


@pytest.mark.slow
@pytest.mark.parametrize('name', ['ptz_simple_spread_mappo_config', 'ptz_simple_reference_mappo_config'])
def test_mappo_config_builds_env_model_and_policy(name):
    import importlib
    module = importlib.import_module(f'dizoo.petting_zoo.config.{name}')
    cfg = compile_config(module.main_config, create_cfg=module.create_config, auto=True, save_cfg=False)
    env = PettingZooEnv(cfg.env)
    env.seed(0)
    obs = env.reset()
    model = cfg.policy.model
    assert obs['agent_state'].shape == (model.agent_num, model.agent_obs_shape)
    assert obs['global_state'].shape[-1] == model.global_obs_shape and obs['action_mask'].shape[-1] == \
        model.action_shape
    policy = PPOPolicy(cfg.policy, model=MAVAC(**cfg.policy.model))
    assert isinstance(policy, MAPPOPolicy)
    batch = Batch.from_rows([obs, obs])
    action = policy.collect_mode.forward_batch(batch)['action']
    assert action.shape == (2, model.agent_num)
    assert not env.step(action[0]).done


def test_compile_config_takes_mappo_defaults_for_multi_agent_ppo():
    from easydict import EasyDict
    create = EasyDict(env=dict(type='petting_zoo', import_names=['dizoo.petting_zoo.envs']), policy=dict(type='ppo'))
    ma = compile_config(EasyDict(policy=dict(multi_agent=True)), create_cfg=create, auto=True, save_cfg=False)
    assert ma.policy.learn.value_norm is True and ma.policy.learn.adv_norm is False  # MAPPOPolicy's defaults
    single = compile_config(EasyDict(policy=dict()), create_cfg=create, auto=True, save_cfg=False)
    assert 'value_norm' not in single.policy.learn and single.policy.multi_agent is False
