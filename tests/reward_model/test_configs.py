"""DI-engine 0.5.3's configs for HER, RND, ICM, SQL, T-REX and GAIL compile against ding, and ours at the
same module paths carry the same values."""
import importlib
import logging

import pytest

from ding.config import compile_config
from tests.di_engine_wheel import di_engine_file

OURS = {  # DI-engine dizoo config -> (our module, the reward model / policy it selects)
    'bitflip/config/bitflip_her_dqn_config.py': 'dizoo.bitflip.config.bitflip_her_dqn_config',
    'bitflip/config/bitflip_pure_dqn_config.py': 'dizoo.bitflip.config.bitflip_pure_dqn_config',
    'classic_control/cartpole/config/cartpole_dqn_rnd_config.py':
    'dizoo.classic_control.cartpole.config.cartpole_dqn_rnd_config',
    'classic_control/cartpole/config/cartpole_sql_config.py': 'dizoo.classic_control.cartpole.config.cartpole_sql_config',
    'box2d/lunarlander/config/lunarlander_sql_config.py': None,
    'classic_control/cartpole/config/cartpole_trex_dqn_config.py':
    'dizoo.classic_control.cartpole.config.cartpole_trex_dqn_config',
    'classic_control/cartpole/config/cartpole_dqn_gail_config.py':
    'dizoo.classic_control.cartpole.config.cartpole_dqn_gail_config',
}


def load(path: str):
    namespace = {'__name__': 'di_engine_config'}
    exec(compile(di_engine_file('dizoo/' + path), path, 'exec'), namespace)
    return namespace['main_config'], namespace['create_config']


@pytest.mark.parametrize('path', sorted(OURS))
def test_di_engine_config_compiles_and_ours_matches_it(path, caplog):
    main, create = load(path)
    with caplog.at_level(logging.WARNING, logger='ding.config'):
        cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    assert cfg.policy.type == create.policy.type
    assert all('accepts but does not use' in r.getMessage() for r in caplog.records)
    if 'reward_model' in create:
        assert cfg.reward_model.type == create.reward_model.type and cfg.reward_model.obs_shape == 4
    if OURS[path]:
        ours = importlib.import_module(OURS[path])
        assert ours.main_config == main and ours.create_config == create


def test_icm_config_section_compiles_with_our_defaults():
    main, create = load('classic_control/cartpole/config/cartpole_ppo_icm_config.py')
    cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    assert cfg.reward_model.type == 'icm' and cfg.reward_model.clear_buffer_per_iters == main.reward_model.get(
        'clear_buffer_per_iters', 100)
