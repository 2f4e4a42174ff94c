"""Minari datasets, made locally (nothing is downloaded): `offline_data_saver` writes one, Minari
itself reads it, `create_dataset` reads it back (and datasets Minari wrote) with equal arrays,
and an offline CQL run trains on it exactly as on the same data in DI-engine's pickle format."""
import os
import sys

import gymnasium as gym
import numpy as np
import pytest
from easydict import EasyDict

from ding.data import create_dataset
from ding.data.batch import Batch
from ding.data.minari_dataset import episode_slices, save_minari
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import offline_data_saver

COLUMNS = ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')


def cfg_of(data_type, path):
    return EasyDict(policy={'collect': {'data_type': data_type, 'data_path': path}})


def collector_batch():
    """Collector layout (env-major rows with env_id): env 0 ends one episode and stops mid-way
    through the next; env 1 is cut by a time limit, then starts again."""
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(10, 3)).astype(np.float32)
    next_obs = np.roll(obs, -1, axis=0)
    next_obs[2] = rng.normal(size=3)  # env 0's first episode ends: its next_obs is a terminal obs
    next_obs[4] = obs[4] + 1  # env 0's batch stops mid-episode
    next_obs[7] = rng.normal(size=3)  # env 1 truncated: reset obs follows
    next_obs[9] = obs[9] + 1
    return Batch(obs=obs, next_obs=next_obs, action=rng.uniform(-2, 2, size=(10, 1)).astype(np.float32),
                 reward=rng.normal(size=10).astype(np.float32),
                 done=np.array([0, 0, 1, 0, 0, 0, 0, 0, 0, 0], bool),
                 truncated=np.array([0, 0, 0, 0, 0, 0, 0, 1, 0, 0], bool), env_id=np.repeat([0, 1], 5))


def test_episodes_end_at_done_truncation_and_breaks():
    assert episode_slices(collector_batch()) == [slice(0, 3), slice(3, 5), slice(5, 8), slice(8, 10)]


def test_saver_writes_a_dataset_minari_reads_and_we_read_back_equal(tmp_path):
    import minari
    batch, path = collector_batch(), str(tmp_path / 'pendulum-mixed')
    ctx = OnlineRLContext(trajectories=batch)
    offline_data_saver(path, data_type='minari')(ctx)
    assert ctx.trajectories is None and not [p for p in os.listdir(tmp_path) if p.endswith('.tmp')]
    theirs = minari.MinariDataset(os.path.join(path, 'data'))
    assert (theirs.total_episodes, theirs.total_steps) == (4, 10) and theirs.spec.dataset_id == 'pendulum-mixed-v0'
    episode = next(theirs.iterate_episodes([2]))
    assert np.array_equal(episode.observations, np.concatenate([batch['obs'][5:8], batch['next_obs'][7:8]]))
    assert episode.truncations.tolist() == [False, False, True]
    ours = create_dataset(cfg_of('minari', path)).batch
    for k in COLUMNS:
        assert np.asarray(ours[k]).dtype == np.asarray(batch[k]).dtype, k
        assert np.array_equal(ours[k], batch[k]), k
    save_minari(batch[:3], path)  # a second save replaces the dataset
    assert len(create_dataset(cfg_of('minari', path))) == 3


def test_reads_a_dataset_minari_made_by_id_and_directory(tmp_path, monkeypatch):
    import minari
    from minari.data_collector import EpisodeBuffer
    monkeypatch.setenv('MINARI_DATASETS_PATH', str(tmp_path))
    env, episodes, rows = gym.make('CartPole-v1', max_episode_steps=15), [], []
    for i in range(3):
        obs, _ = env.reset(seed=i)
        observations, actions, rewards, terms, truncs = [obs], [], [], [], []
        while not (terms and (terms[-1] or truncs[-1])):
            action = int(env.action_space.sample())
            obs, reward, term, trunc, _ = env.step(action)
            rows.append((observations[-1], action, reward, obs, term, trunc))
            observations.append(obs), actions.append(action), rewards.append(reward), terms.append(term)
            truncs.append(trunc)
        episodes.append(EpisodeBuffer(id=i, observations=np.array(observations), actions=np.array(actions),
                                      rewards=np.array(rewards), terminations=np.array(terms),
                                      truncations=np.array(truncs), infos={}))
    with pytest.warns(UserWarning):  # minari asks for author, description...
        minari.create_dataset_from_buffers('ding/cartpole-random-v0', episodes, env='CartPole-v1')
    for source in ('ding/cartpole-random-v0', str(tmp_path / 'ding' / 'cartpole-random-v0')):
        data = create_dataset(cfg_of('minari', source)).batch
        assert len(data) == len(rows)
        for j, k in enumerate(COLUMNS):
            assert np.array_equal(data[k], np.array([r[j] for r in rows])), k
    with pytest.raises(FileNotFoundError, match='never downloaded'):
        create_dataset(cfg_of('minari', 'ding/not-made-v0'))


def test_missing_minari_package_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, 'minari', None)
    with pytest.raises(ImportError, match=r'pip install "ding\[minari\]"'):
        save_minari(collector_batch(), str(tmp_path / 'x'))


@pytest.mark.slow
def test_cql_trains_identically_on_the_minari_copy(tmp_path):
    from ding.data.offline_dataset import data_type_of_path, load_naive
    from ding.entry import serial_pipeline_offline
    from dizoo.classic_control.pendulum.entry.pendulum_make_dataset import make_dataset
    from tests.offline.test_serial_offline import small_cql, weights
    naive, minari_dir = str(tmp_path / 'random.pkl'), str(tmp_path / 'random')
    make_dataset(naive, kind='random', episodes=2, data_type='naive')
    offline_data_saver(minari_dir, data_type='minari')(OnlineRLContext(trajectories=load_naive(naive)))
    assert data_type_of_path(minari_dir) == 'minari'  # what `ding train --dataset DIR` picks
    policies = []
    for data_type, path in (('naive', naive), ('minari', minari_dir)):
        main, create = small_cql(path, str(tmp_path / data_type))
        main.policy.collect.data_type = data_type
        policies.append(serial_pipeline_offline((main, create), seed=3, max_train_iter=20, save_cfg=False))
    assert [p.final_ctx.train_iter for p in policies] == [20, 20]
    a, b = (weights(p) for p in policies)
    assert all(np.array_equal(a[k].numpy(), b[k].numpy()) for k in a)
