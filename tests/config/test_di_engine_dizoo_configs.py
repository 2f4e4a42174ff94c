"""Acceptance: DI-engine 0.5.3's own dizoo configs, for the algorithms and envs ding ships,
compile against ding; DI-engine keys ding ignores get one warning each; misspellings still fail."""
import logging
import os
import re

import pytest
from easydict import EasyDict

from ding.config import compile_config
from ding.compat import config_keys as di_engine_keys
from tests.di_engine_wheel import di_engine_file, di_engine_names

# (config file under dizoo/, what it trains); configs needing a reward model (GAIL, TREX, RND,
# ICM, GCL) or a policy ding does not ship are out of scope.
CONFIGS = [
    f'classic_control/cartpole/config/cartpole_{name}_config.py'
    for name in ('dqn', 'ppo', 'a2c', 'pg', 'c51', 'qrdqn', 'iqn', 'rainbow', 'ppo_offpolicy', 'sac', 'dqn_ddp',
                 'ppo_ddp', 'qrdqn_generation_data')
] + [
    f'classic_control/pendulum/config/pendulum_{name}_config.py'
    for name in ('sac', 'td3', 'ddpg', 'ppo', 'a2c', 'pg', 'dqn', 'sac_data_generation', 'td3_data_generation')
] + [
    f'box2d/lunarlander/config/lunarlander_{name}_config.py'
    for name in ('dqn', 'dqn_deque', 'ppo', 'a2c', 'pg', 'offppo', 'c51', 'qrdqn', 'cont_sac', 'cont_td3',
                 'cont_ddpg')
] + [
    f'mujoco/config/{env}_{algo}_config.py'
    for env in ('halfcheetah', 'hopper', 'walker2d', 'ant') for algo in ('sac', 'td3', 'ddpg', 'onppo')
] + [f'petting_zoo/config/ptz_simple_spread_{name}_config.py' for name in ('qmix', 'vdn')]  # recurrent QMIX


def load(path: str):
    """main_config, create_config of a DI-engine config file (its `__main__` block not run)."""
    namespace = {'__name__': 'di_engine_config', '__file__': path}
    exec(compile(di_engine_file('dizoo/' + path), path, 'exec'), namespace)
    return namespace['main_config'], namespace['create_config']


@pytest.mark.parametrize('path', CONFIGS)
def test_di_engine_config_compiles(path, caplog):
    main, create = load(path)
    with caplog.at_level(logging.WARNING, logger='ding.config'):
        cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    assert cfg.policy.type == create.policy.type
    for record in caplog.records:  # the only warnings: DI-engine keys ding accepts and ignores
        assert 'is a DI-engine key that ding accepts but does not use' in record.getMessage()


def test_cartpole_dqn_keys_that_failed_before_have_their_meaning():
    main, create = load('classic_control/cartpole/config/cartpole_dqn_config.py')
    assert create.replay_buffer.import_names == ['ding.data.buffer.deque_buffer_wrapper']
    cfg = compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    assert cfg.policy.load_path == 'cartpole_dqn_seed0/ckpt/ckpt_best.pth.tar'
    assert cfg.env.replay_path == 'cartpole_dqn_seed0/video'
    assert cfg.policy.learn.learner.hook.load_ckpt_before_run == ''


def test_a_misspelt_key_still_fails_with_did_you_mean():
    main, create = load('classic_control/cartpole/config/cartpole_dqn_config.py')
    main = EasyDict(main)
    main.policy.learn.batch_szie = 32
    with pytest.raises(KeyError, match=r"cfg.policy.learn.batch_szie \(did you mean 'batch_size'\?\)"):
        compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    main.policy.learn.pop('batch_szie')
    main.policy.load_pth = 'x'
    with pytest.raises(KeyError, match=r"did you mean 'load_path'"):
        compile_config(main, create_cfg=create, auto=True, save_cfg=False)


def test_an_ignored_di_engine_key_warns_once_naming_it(caplog, monkeypatch):
    monkeypatch.setattr(di_engine_keys, '_warned', set())
    main, create = load('classic_control/pendulum/config/pendulum_td3_config.py')
    with caplog.at_level(logging.WARNING, logger='ding.config'):
        for _ in range(3):
            compile_config(main, create_cfg=create, auto=True, save_cfg=False)
    messages = [r.getMessage() for r in caplog.records if 'policy.collect.collector' in r.getMessage()]
    assert len(messages) == 1 and messages[0].startswith('config key cfg.policy.collect.collector is a DI-engine key')


def test_naive_buffer_type_is_our_deque_buffer():
    from ding.data import DequeBuffer
    from ding.utils import BUFFER_REGISTRY
    assert BUFFER_REGISTRY.lookup('naive') is DequeBuffer


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Configs of shipped envs and policy types that need what ding does not ship, each with why (a
# config matching one still has to compile when it can: some TREX configs need no reward model).
OUT_OF_SCOPE = {
    r'.*_(gail|trex|gcl)(_\w+)?_config\.py': 'a reward model ding does not ship (GAIL, TREX, guided cost)',
    r'.*_bco_config\.py': 'BCO (behaviour cloning from observation), not shipped',
    r'.*/qbert_sqil_config\.py': 'SQIL (DQN with its learn.alpha), not shipped',
    r'petting_zoo/.*_maddpg_config\.py': 'multi-agent DDPG, not shipped',
    r'gym_hybrid/.*_ddpg_config\.py': 'hybrid-action DDPG (action_space=hybrid), not shipped',
    # refused on purpose (issue 36): a SAC config whose policy.discount_factor SAC never reads (its
    # discount is policy.learn.discount_factor, which this file also sets)
    r'classic_control/pendulum/config/pendulum_sqil_sac_config\.py': 'policy.discount_factor, which SAC does not read',
}


def shipped_configs():
    """(path, policy type, out-of-scope reason or '') of every DI-engine config of an env ding
    has a dizoo package and an env module for, whose policy type ding registers."""
    from ding.utils.registry import POLICY_REGISTRY
    found = []
    for name in di_engine_names('dizoo/'):
        m = re.fullmatch(r'dizoo/(.+?)/config/(.+_config)\.py', name)
        if not m or not os.path.isdir(os.path.join(ROOT, 'dizoo', m.group(1))):
            continue
        path = name[len('dizoo/'):]
        try:
            _, create = load(path)
        except Exception:  # noqa: BLE001 - a config file that does not run in DI-engine either
            continue
        try:
            POLICY_REGISTRY.lookup(create.policy.type)
        except (KeyError, ModuleNotFoundError):
            continue
        if not all(_module_exists(m) for m in (create.get('env') or {}).get('import_names') or ()):
            continue  # an env of that family ding does not ship (e.g. petting_zoo's pistonball)
        why = next((w for pattern, w in OUT_OF_SCOPE.items() if re.fullmatch(pattern, path)), '')
        found.append((path, create.policy.type, why))
    return found


def _module_exists(name: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.slow  # ~240 DI-engine config files read and compiled (~4 s)
def test_every_di_engine_config_of_what_ding_ships_compiles():
    """Acceptance, in full: every config DI-engine 0.5.3 has for an env and algorithm ding ships
    compiles, apart from the listed ones that need what ding does not ship."""
    failed, compiled, out_of_scope = [], [], []
    for path, _, why in shipped_configs():
        main, create = load(path)
        try:
            compile_config(main, create_cfg=create, auto=True, save_cfg=False)
            compiled.append(path)
        except Exception as err:  # noqa: BLE001 - collected, reported below
            (out_of_scope if why else failed).append((path, ' '.join(str(err).split())[:300]))
    assert not failed, failed
    assert len(compiled) >= 220 and len(out_of_scope) == 20, (len(compiled), out_of_scope)
    print(f'{len(compiled)} DI-engine configs compile; {len(out_of_scope)} need what ding does not ship')
