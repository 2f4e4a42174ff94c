import os
import sys
import textwrap

import pytest
import yaml

from ding.config import compile_config, read_config
from ding.config.io import to_plain
from ding.policy.base_policy import Policy
from ding.utils.registry import BUFFER_REGISTRY, ENV_MANAGER_REGISTRY, ENV_REGISTRY, POLICY_REGISTRY


class H4Env:
    config = dict(env_id='Toy-v0', stop_value=10, collector_env_num=4)

    @classmethod
    def default_config(cls):
        return dict(cls.config)


class H4FreeEnv:
    """Declares no config: any env key is accepted."""


class H4Manager:

    @classmethod
    def default_config(cls):
        return dict(type='h4_manager', episode_num=5, auto_reset=True)


class H4Policy(Policy):
    config = dict(type='h4_policy', learn=dict(learning_rate=0.1, batch_size=16),
                  other=dict(eps=dict(start=1.0, end=0.05), replay_buffer=dict(replay_buffer_size=100)))


class H4Buffer:
    config = dict(replay_buffer_size=5, max_use=3)


ENV_REGISTRY.register('h4_env', H4Env, force=True)
ENV_REGISTRY.register('h4_free_env', H4FreeEnv, force=True)
ENV_MANAGER_REGISTRY.register('h4_manager', H4Manager, force=True)
POLICY_REGISTRY.register('h4_policy', H4Policy, force=True)
BUFFER_REGISTRY.register('h4_buffer', H4Buffer, force=True)


def create(env='h4_env', **extra):
    base = dict(env=dict(type=env), env_manager=dict(type='h4_manager'), policy=dict(type='h4_policy'),
                replay_buffer=dict(type='h4_buffer'))
    return {**base, **extra}


def compile_(main, create_cfg=None, **kw):
    kw.setdefault('save_cfg', False)
    return compile_config(main, create_cfg=create_cfg or create(), auto=True, **kw)


def test_merge_precedence_class_then_create_then_user():
    main = dict(exp_name='run', env=dict(stop_value=20, manager=dict(episode_num=9)),
                policy=dict(learn=dict(batch_size=32), model=dict(obs_shape=3)))
    cfg = compile_(main, create(env_manager=dict(type='h4_manager', auto_reset=False)), seed=4)
    assert cfg.env.stop_value == 20 and cfg.env.env_id == 'Toy-v0' and cfg.env.collector_env_num == 4
    assert cfg.env.evaluator_env_num == 1  # common env key, not declared by the env class
    assert cfg.env.type == 'h4_env'
    assert dict(cfg.env.manager) == dict(type='h4_manager', episode_num=9, auto_reset=False)
    assert cfg.policy.type == 'h4_policy' and cfg.policy.learn.learning_rate == 0.1
    assert cfg.policy.learn.batch_size == 32 and cfg.policy.learn.update_per_collect == 1  # base Policy default
    assert cfg.policy.model == dict(obs_shape=3)
    # DI-engine's PER keys (ding/config/common_keys.py) < buffer class defaults < the policy's replay_buffer section < user
    assert dict(cfg.policy.other.replay_buffer) == dict(replay_buffer_size=100, max_use=3, type='h4_buffer',
                                                        alpha=0.6, beta=0.4, anneal_step=100000)
    assert cfg.policy.random_collect_size == 0  # a policy with a replay buffer takes DI-engine's warm-up key
    assert cfg.seed == 4 and cfg.exp_name == 'run'


def test_misspelt_key_names_path_and_closest_key():
    main = dict(policy=dict(learn=dict(learning_rat=0.5), other=dict(eps=dict(strat=1.0))))
    with pytest.raises(KeyError) as err:
        compile_(main)
    msg = str(err.value)
    assert msg.startswith('unknown config keys:\n')
    assert "cfg.policy.learn.learning_rat (did you mean 'learning_rate'?)" in msg
    assert "cfg.policy.other.eps.strat (did you mean 'start'?)" in msg


def test_env_keys_checked_against_env_class_and_free_env_accepts_any():
    with pytest.raises(KeyError, match=r"cfg.env.env_ide \(did you mean 'env_id'\?\)"):
        compile_(dict(env=dict(env_ide='x')))
    with pytest.raises(KeyError, match=r"cfg.env.manager.episode_nums \(did you mean 'episode_num'\?\)"):
        compile_(dict(env=dict(manager=dict(episode_nums=1))))
    cfg = compile_(dict(env=dict(anything=1, stop_value=3)), create('h4_free_env'))
    assert cfg.env.anything == 1 and cfg.env.stop_value == 3


def test_unknown_top_level_key_and_section_type():
    with pytest.raises(KeyError, match=r"cfg.polciy \(did you mean 'policy'\?\)"):
        compile_(dict(polciy=dict()))
    with pytest.raises(ValueError, match='^policy.learn must be a mapping, got 3$'):  # a type error: schema.py
        compile_(dict(policy=dict(learn=3)))


def test_unknown_type_and_missing_create_cfg():
    with pytest.raises(KeyError, match="unknown policy type 'h4_polcy'.*did you mean 'h4_policy'"):
        compile_(dict(), dict(create(), policy=dict(type='h4_polcy')))
    with pytest.raises(ValueError, match='needs create_cfg'):
        compile_config(dict(), auto=True, save_cfg=False)


def test_import_names_are_imported_before_lookup(tmp_path, monkeypatch):
    (tmp_path / 'h4_plugin_env.py').write_text(textwrap.dedent('''
        from ding.utils.registry import ENV_REGISTRY

        @ENV_REGISTRY.register('h4_plugin_env', force=True)
        class PluginEnv:
            config = dict(level=2)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, 'h4_plugin_env', raising=False)
    cfg = compile_(dict(), dict(create(), env=dict(type='h4_plugin_env', import_names=['h4_plugin_env'])))
    assert cfg.env.level == 2 and cfg.env.import_names == ['h4_plugin_env']


def test_without_auto_uses_given_classes_only():
    cfg = compile_config(dict(policy=dict(learn=dict(batch_size=8))), policy=H4Policy, save_cfg=False)
    assert cfg.policy.learn.batch_size == 8 and cfg.policy.learn.learning_rate == 0.1
    assert cfg.exp_name == 'default_experiment' and cfg.seed == 0
    with pytest.raises(KeyError, match='cfg.policy.learn.batch_sise'):
        compile_config(dict(policy=dict(learn=dict(batch_sise=8))), policy=H4Policy, save_cfg=False)


def test_saved_files_round_trip(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    main = dict(exp_name='exp', env=dict(stop_value=float('inf')), policy=dict(model=dict(obs_shape=[3, 2])))
    cfg = compile_(main, save_cfg=True, seed=2)
    assert sorted(os.listdir('exp')) == ['config.yaml', 'total_config.py']
    with open('exp/config.yaml') as f:
        assert yaml.safe_load(f) == to_plain(cfg)
    saved_main, saved_create = read_config('exp/total_config.py')
    assert saved_create == create()
    again = compile_config(saved_main, create_cfg=saved_create, auto=True, seed=2, save_cfg=True, renew_dir=False)
    assert again == cfg
    renewed = compile_(main, save_cfg=True)
    assert renewed.exp_name.startswith('exp_') and os.path.isfile(os.path.join(renewed.exp_name, 'config.yaml'))


def test_read_config_python_and_yaml(tmp_path):
    py = tmp_path / 'my_config.py'
    py.write_text("main_config = dict(exp_name='a', policy=dict(nstep=3))\n"
                  "create_config = dict(policy=dict(type='dqn'))\n")
    main, create_cfg = read_config(str(py))
    assert main.policy.nstep == 3 and create_cfg.policy.type == 'dqn'
    yml = tmp_path / 'config.yaml'
    yml.write_text('exp_name: b\nseed: 1\n')
    assert read_config(str(yml)) == ({'exp_name': 'b', 'seed': 1}, {})
    with pytest.raises(FileNotFoundError):
        read_config(str(tmp_path / 'missing.py'))


def test_manager_type_in_main_config_selects_the_keys_checked():
    """`env.manager.type` in the user's config names the manager the pipeline builds, so that
    manager's own keys (gym_vector's `vector`) are valid and typos are still caught."""
    from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config
    import ding.envs  # noqa: F401  (registers the managers)
    main = dict(main_config, env=dict(main_config.env, manager=dict(type='gym_vector', vector='sync')))
    cfg = compile_config(main, create_cfg=create_config, auto=True, save_cfg=False)
    assert cfg.env.manager.type == 'gym_vector' and cfg.env.manager.vector == 'sync'
    main['env']['manager'] = dict(type='gym_vector', vectr='sync')
    with pytest.raises(KeyError, match='vectr.*vector'):
        compile_config(main, create_cfg=create_config, auto=True, save_cfg=False)
