"""`ding collect RUN_DIR --episodes N --eps E --out F`: a dataset from a run's checkpoint that
`create_dataset` reads back; eps 1 plays uniform actions, eps 0 the greedy policy."""
import json

import numpy as np
import pytest

from ding.entry.cli import main

SMALL = json.dumps({'env': {'n_evaluator_episode': 1},
                    'policy': {'collect': {'n_sample': 8}, 'learn': {'update_per_collect': 1},
                               'other': {'replay_buffer': {'replay_buffer_size': 1000}}}})


@pytest.fixture(scope='module')
def run_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp('collect')
    assert main(['train', '--algo', 'dqn', '--env', 'CartPole-v0', '--max-env-step', '32', '--checkpoint-freq',
                 '32', '--config', SMALL, '--exp-name', str(root / 'run'), '--no-progress']) == 0
    return root / 'run'


@pytest.mark.slow  # a short training run first (~1.5 s)
def test_collect_writes_a_dataset_the_offline_readers_load(run_dir, tmp_path, capsys):
    pytest.importorskip('h5py')
    from ding.data.offline_dataset import dataset_from_path
    out = tmp_path / 'data.hdf5'
    assert main(['collect', str(run_dir), '--episodes', '3', '--eps', '0.0', '--out', str(out)]) == 0
    printed = capsys.readouterr().out
    assert 'episodes=3' in printed and 'transitions=' in printed
    greedy = dataset_from_path(str(out)).batch
    ends = np.asarray(greedy['done']) | np.asarray(greedy['truncated'])
    assert int(ends.sum()) == 3 and ends[-1]
    assert np.array_equal(greedy['obs'][1:][~ends[:-1]], greedy['next_obs'][:-1][~ends[:-1]])  # consecutive steps

    assert main(['collect', str(run_dir), '--episodes', '3', '--eps', '1.0', '--out', str(tmp_path / 'r.pkl'),
                 '--data-type', 'naive']) == 0
    random_actions = dataset_from_path(str(tmp_path / 'r.pkl')).batch['action']
    assert len(np.unique(np.asarray(random_actions))) == 2  # both CartPole actions appear
    assert main(['collect', str(run_dir), '--eps', '1.5', '--out', str(tmp_path / 'x.hdf5')]) == 2
    assert '--eps must be in [0, 1]' in capsys.readouterr().err


@pytest.mark.slow  # a short training run first, then 30 offline updates
def test_train_offline_on_a_collected_dataset(run_dir, tmp_path, capsys, monkeypatch):
    pytest.importorskip('h5py')
    monkeypatch.chdir(tmp_path)
    assert main(['collect', str(run_dir), '--episodes', '2', '--eps', '0.3', '--out', 'd.hdf5']) == 0
    assert main(['train', '--algo', 'cql', '--env', 'CartPole-v0', '--dataset', 'd.hdf5', '--max-train-iter', '30',
                 '--exp-name', 'offline', '--config', '{"env": {"n_evaluator_episode": 1}}',
                 '--checkpoint-freq', '10', '--keep-checkpoints', '1']) == 0
    assert 'finished: train_iter=30 ' in capsys.readouterr().out
    ckpt = tmp_path / 'offline' / 'ckpt'
    assert (ckpt / 'final.pth.tar').is_file()
    # a checkpoint every 10 updates, the newest one kept; resume keeps the bound (run.json)
    assert sorted(p.name for p in ckpt.glob('iteration_*')) == ['iteration_30.pth.tar']
    assert json.loads((tmp_path / 'offline' / 'run.json').read_text())['keep_checkpoints'] == 1
    assert main(['train', '--algo', 'cql', '--env', 'Hopper-v5', '--dataset', 'd.hdf5']) == 2
    assert "valid choices: --algo bc --env CartPole-v0" in capsys.readouterr().err
