"""Every offline dizoo config compiles (no misspelt key) and builds its policy and model."""
import copy
import importlib

import pytest

from ding.config import compile_config
from ding.utils.registry import POLICY_REGISTRY

CONFIGS = [f'dizoo.classic_control.pendulum.config.pendulum_{n}_config'
           for n in ('cql', 'td3_bc', 'iql', 'bcq', 'sac_data_generation')] + \
          [f'dizoo.classic_control.cartpole.config.cartpole_{n}_config' for n in ('cql', 'bc')]


@pytest.mark.parametrize('module', CONFIGS)
def test_offline_config_compiles_and_builds(module):
    config = importlib.import_module(module)
    cfg = compile_config(copy.deepcopy(config.main_config), create_cfg=copy.deepcopy(config.create_config), auto=True,
                         save_cfg=False)
    policy = POLICY_REGISTRY.lookup(cfg.policy.type)(cfg.policy, enable_field=['eval'])
    assert policy.eval_mode.forward_batch([[0.0] * cfg.policy.model.obs_shape])['action'].shape[0] == 1
