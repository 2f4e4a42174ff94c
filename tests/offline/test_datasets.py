"""Offline datasets: save then load in each format gives the same arrays; DI-engine's file
naming and layouts; D4RL-layout conversion; clear errors; the fetcher's epochs and state."""
import pickle

import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.data import Batch, create_dataset, offline_data_save_type, save_offline_data
from ding.data.offline_dataset import D4RLDataset, HDF5Dataset, NaiveRLDataset, d4rl_transitions, read_hdf5
from ding.framework.context import OfflineRLContext
from ding.framework.middleware import offline_data_fetcher

pytest.importorskip('h5py')


def transitions(n=7, seed=0):
    rng = np.random.default_rng(seed)
    return Batch(obs=rng.normal(size=(n, 3)).astype(np.float32), action=rng.uniform(-1, 1, (n, 1)).astype(np.float32),
                 reward=rng.normal(size=n).astype(np.float32), next_obs=rng.normal(size=(n, 3)).astype(np.float32),
                 done=np.arange(n) % 3 == 2, truncated=np.arange(n) == n - 1)


def cfg_for(path, data_type, **env):
    return EasyDict(policy=dict(collect=dict(data_type=data_type, data_path=str(path))), env=env)


def assert_same(batch, expected):
    for key in expected.keys():
        got = np.asarray(batch[key])
        assert got.dtype == expected[key].dtype, key
        np.testing.assert_array_equal(got, expected[key], err_msg=key)


@pytest.mark.parametrize('data_type, name', [('naive', 'd.pkl'), ('hdf5', 'd.hdf5'), ('d4rl', 'd4rl.hdf5')])
def test_save_then_load_gives_equal_arrays(tmp_path, data_type, name):
    data = transitions()
    path = tmp_path / name
    save_offline_data(data, str(path), data_type)
    dataset = create_dataset(cfg_for(path, data_type))
    assert len(dataset) == len(data)
    assert_same(dataset.batch, data)
    row = dataset[4]
    np.testing.assert_array_equal(row['obs'], data.obs[4])
    assert bool(row['done']) == bool(data.done[4])


def test_di_engine_layouts_and_naming(tmp_path):
    data = transitions()
    written = offline_data_save_type(data, str(tmp_path / 'expert.pkl'), data_type='hdf5')
    assert written == str(tmp_path / 'expert_demos.hdf5')  # where DI-engine's configs read it
    assert sorted(read_hdf5(written)) == ['action', 'done', 'next_obs', 'obs', 'reward', 'truncated']
    naive = offline_data_save_type(data, str(tmp_path / 'expert.pkl'), data_type='naive')
    with open(naive, 'rb') as f:
        rows = pickle.load(f)  # DI-engine's NaiveRLDataset reads it so: a list of transition dicts
    assert isinstance(rows, list) and len(rows) == 7 and set(rows[0]) >= {'obs', 'action', 'reward', 'done'}
    # a DI-engine naive file (dicts of torch tensors) reads back, cfg given as a bare path too
    with open(tmp_path / 'di.pkl', 'wb') as f:
        pickle.dump([{k: torch.as_tensor(v) for k, v in r.items()} for r in rows], f)
    assert_same(NaiveRLDataset(str(tmp_path / 'di.pkl')).batch, data)
    # DI-engine's transitions hold each reward as a [1] tensor: read back as one column [N]
    with open(tmp_path / 'di1.pkl', 'wb') as f:
        pickle.dump([dict(r, reward=torch.as_tensor([r['reward']])) for r in rows], f)
    np.testing.assert_array_equal(NaiveRLDataset(str(tmp_path / 'di1.pkl')).batch.reward, data.reward)


def test_d4rl_layout_without_next_observations(tmp_path):
    import h5py
    obs = np.arange(12, dtype=np.float32).reshape(6, 2)
    with h5py.File(tmp_path / 'raw.hdf5', 'w') as f:
        f['observations'], f['actions'] = obs, np.zeros((6, 1), np.float32)
        f['rewards'] = np.arange(6, dtype=np.float32)
        f['terminals'] = np.array([0, 0, 1, 0, 0, 0], bool)
        f['timeouts'] = np.array([0, 0, 0, 0, 1, 0], bool)
    for dataset in (D4RLDataset(str(tmp_path / 'raw.hdf5')), HDF5Dataset(str(tmp_path / 'raw.hdf5'))):
        # rows 0..3 kept (row 4 times out: its next row starts an episode; row 5 is the last)
        assert dataset.batch.reward.tolist() == [0, 1, 2, 3]
        np.testing.assert_array_equal(dataset.batch.next_obs, obs[1:5])
        assert dataset.batch.done.tolist() == [False, False, True, False]
    converted = d4rl_transitions({'observations': obs, 'actions': obs[:, :1], 'rewards': obs[:, 0],
                                  'terminals': np.zeros(6, bool), 'next_observations': obs + 1})
    assert len(converted) == 6 and converted.truncated.tolist() == [False] * 6


def test_statistics_and_normalised_observations(tmp_path):
    data = transitions(50)
    save_offline_data(data, str(tmp_path / 'd.pkl'), 'naive')
    plain = create_dataset(cfg_for(tmp_path / 'd.pkl', 'naive'))
    np.testing.assert_allclose(plain.mean, data.obs.mean(0), rtol=1e-5)
    low, high = plain.action_bounds
    assert (low < data.action.min(0)).all() and (high > data.action.max(0)).all()
    norm_obs = dict(use_norm=True, offline_stats=dict(use_offline_stats=True))
    norm = create_dataset(cfg_for(tmp_path / 'd.pkl', 'naive', norm_obs=norm_obs))
    assert norm.obs_normalized and not plain.obs_normalized
    np.testing.assert_allclose(norm.batch.obs.mean(0), 0, atol=1e-5)
    assert norm.statistics.std.shape == (3, )


def test_clear_errors(tmp_path):
    with pytest.raises(ValueError, match='data_path'):
        create_dataset(EasyDict(policy=dict(collect=dict(data_type='hdf5'))))
    with pytest.raises(FileNotFoundError, match='nowhere.hdf5'):
        create_dataset(cfg_for(tmp_path / 'nowhere.hdf5', 'hdf5'))
    with pytest.raises(KeyError, match="unknown dataset type 'hdf6'"):
        create_dataset(cfg_for(tmp_path / 'x', 'hdf6'))
    with pytest.raises(ValueError, match='data_type must be one of'):
        save_offline_data(transitions(), str(tmp_path / 'x'), 'csv')
    (tmp_path / 'junk.pkl').write_bytes(b'not a pickle')
    with pytest.raises(ValueError, match='not a naive offline dataset'):
        NaiveRLDataset(str(tmp_path / 'junk.pkl'))
    save_offline_data(Batch(obs=np.zeros((3, 2)), reward=np.zeros(3)), str(tmp_path / 'partial.pkl'))
    with pytest.raises(KeyError, match=r"no \['action', 'next_obs', 'done'\]"):
        NaiveRLDataset(str(tmp_path / 'partial.pkl'))


def test_fetcher_epochs_cover_every_row_and_resume_exactly(tmp_path):
    save_offline_data(transitions(10), str(tmp_path / 'd.pkl'))
    dataset = create_dataset(cfg_for(tmp_path / 'd.pkl', 'naive'))
    cfg = EasyDict(policy=dict(learn=dict(batch_size=4)))
    fetch = offline_data_fetcher(cfg, dataset, seed=3)
    ctx, seen = OfflineRLContext(), []
    for _ in range(3):
        fetch(ctx)
        seen.append(ctx.train_data.reward)
    assert [len(s) for s in seen] == [4, 4, 2] and ctx.train_epoch == 0 and ctx.trained_env_step == 10
    assert sorted(np.concatenate(seen).tolist()) == sorted(dataset.batch.reward.tolist())
    state = fetch.state_dict()
    fetch(ctx)
    assert ctx.train_epoch == 1
    again = offline_data_fetcher(cfg, dataset, seed=99)
    again.load_state_dict(state)
    other = OfflineRLContext()
    again(other)
    np.testing.assert_array_equal(other.train_data.reward, ctx.train_data.reward)
