"""dizoo.d4rl on local data: D4RL env ids name gymnasium's MuJoCo envs, and a config that
names an env id without a data_path reads `$D4RL_DATASET_DIR/<env_id>.hdf5`, made by our
dataset maker (never downloaded)."""
import importlib

import numpy as np
import pytest
from easydict import EasyDict

from dizoo.mujoco.envs.mujoco_env import mujoco_available

pytest.importorskip('h5py')


def test_env_ids_map_to_gymnasium_and_unknown_ones_are_named():
    from dizoo.d4rl.envs import gymnasium_env_id
    assert gymnasium_env_id('halfcheetah-medium-v2') == 'HalfCheetah-v5'
    assert gymnasium_env_id('hopper-medium-expert-v2') == 'Hopper-v5'
    with pytest.raises(ValueError, match="unknown domain 'pen'"):
        gymnasium_env_id('pen-human-v1')


def test_env_id_dataset_is_read_from_the_local_folder(tmp_path, monkeypatch):
    from ding.data import create_dataset
    from ding.data.offline_save import save_offline_data
    monkeypatch.setenv('D4RL_DATASET_DIR', str(tmp_path))
    cfg = EasyDict(env=dict(env_id='hopper-medium-v2'), policy=dict(collect=dict(data_type='d4rl')))
    with pytest.raises(FileNotFoundError, match='d4rl_make_dataset --env-id hopper-medium-v2'):
        create_dataset(cfg)
    rng = np.random.default_rng(0)
    columns = dict(obs=rng.normal(size=(6, 11)).astype(np.float32),
                   action=rng.uniform(-1, 1, (6, 3)).astype(np.float32),
                   reward=np.arange(6, dtype=np.float32), next_obs=rng.normal(size=(6, 11)).astype(np.float32),
                   done=np.array([0, 0, 1, 0, 0, 0], bool), truncated=np.array([0, 0, 0, 0, 0, 1], bool))
    save_offline_data(columns, str(tmp_path / 'hopper-medium-v2.hdf5'), 'd4rl')
    dataset = create_dataset(cfg)
    assert np.array_equal(dataset.batch['reward'], columns['reward'])
    assert np.array_equal(dataset.batch['obs'], columns['obs'])


@pytest.mark.skipif(not mujoco_available(), reason='needs the mujoco extra')
def test_random_dataset_is_made_in_d4rl_layout_and_the_env_plays(tmp_path):
    from ding.data.offline_dataset import read_hdf5
    from dizoo.d4rl.entry.d4rl_make_dataset import make_dataset
    from dizoo.d4rl.envs import D4RLEnv
    info = make_dataset('hopper-random-v2', out=str(tmp_path / 'h.hdf5'), episodes=2)
    arrays = read_hdf5(info['path'])
    assert {'observations', 'actions', 'rewards', 'terminals', 'timeouts'} <= set(arrays)
    assert arrays['observations'].shape[1] == 11 and info['episodes'] == 2
    assert int(arrays['terminals'].sum() + arrays['timeouts'].sum()) == 2
    env = D4RLEnv(EasyDict(env_id='hopper-random-v2'))
    env.reset()
    timestep = env.step(np.zeros(3, np.float32))
    assert np.asarray(timestep.obs).shape == (11, )
    env.close()
    with pytest.raises(ValueError, match='medium-replay'):
        make_dataset('hopper-medium-replay-v2', out=str(tmp_path / 'x.hdf5'))


def test_every_d4rl_config_compiles_against_our_policies():
    import pkgutil

    import dizoo.d4rl.config as configs
    from ding.config import compile_config
    names = sorted(m.name for m in pkgutil.iter_modules(configs.__path__))
    assert len(names) == 8
    for name in names:
        module = importlib.import_module(f'dizoo.d4rl.config.{name}')
        cfg = compile_config(module.main_config, create_cfg=module.create_config, auto=True, save_cfg=False)
        assert cfg.env.type == 'd4rl' and cfg.policy.collect.data_type == 'd4rl', name
        assert cfg.policy.type in name.replace('td3bc', 'td3_bc'), name


@pytest.mark.parametrize('config', ['dizoo.d4rl.config.halfcheetah_medium_td3bc_config',
                                    'dizoo.classic_control.pendulum.config.pendulum_td3_bc_config'])
def test_norm_obs_is_declared_for_offline_policies_so_it_neither_warns_nor_lets_a_typo_through(
        config, caplog, monkeypatch):
    """The offline path normalises observations with `env.norm_obs` (create_dataset, serial_offline)
    whatever the env: an offline policy's config declares the keys, so TD3+BC's configs compile
    without the 'accepts but does not use' warning, and a misspelt key under it is refused."""
    import copy
    import logging
    from ding.compat import config_keys
    from ding.config import compile_config
    monkeypatch.setattr(config_keys, '_warned', set())  # warned once per process: an earlier test may have
    module = importlib.import_module(config)
    with caplog.at_level(logging.WARNING, logger='ding.config'):
        cfg = compile_config(copy.deepcopy(module.main_config), create_cfg=module.create_config, auto=True,
                             save_cfg=False)
    assert cfg.env.norm_obs.use_norm and cfg.env.norm_obs.offline_stats.use_offline_stats
    assert not [r for r in caplog.records if 'norm_obs' in r.getMessage()]
    wrong = copy.deepcopy(module.main_config)
    wrong.env.norm_obs.use_nrom = True
    with pytest.raises(KeyError, match='use_nrom'):
        compile_config(wrong, create_cfg=module.create_config, auto=True, save_cfg=False)


def test_norm_obs_of_an_online_config_is_still_a_key_ding_does_not_use(caplog, monkeypatch):
    """DI-engine's online MuJoCo configs carry `env.norm_obs`, which nothing reads there: it is
    accepted with one warning, as before."""
    import copy
    import logging
    from ding.compat import config_keys
    from ding.config import compile_config
    from dizoo.mujoco.config import hopper_sac_config as module
    monkeypatch.setattr(config_keys, '_warned', set())
    main = copy.deepcopy(module.main_config)
    main.env.norm_obs = dict(use_norm=False)
    with caplog.at_level(logging.WARNING, logger='ding.config'):
        compile_config(main, create_cfg=module.create_config, auto=True, save_cfg=False)
    assert [r for r in caplog.records if 'cfg.env.norm_obs' in r.getMessage() and 'does not use' in r.getMessage()]
