"""`ding resume` of an offline run (`ding train --algo cql --dataset PATH`): a run killed with
SIGKILL mid-training ends with the same weights and evaluations as an uninterrupted one, and
resuming refuses a dataset that is gone or changed since the run started."""
import json
import os
import shutil
import subprocess
import sys

import pytest
import torch

from ding.entry.cli import main as ding_main
from tests.resume.kill_helpers import sigkill_once

OVERRIDES = {'env': {'evaluator_env_num': 1, 'n_evaluator_episode': 1},
             'policy': {'model': {'actor_head_hidden_size': 16, 'critic_head_hidden_size': 16},
                        'learn': {'batch_size': 32, 'num_actions': 2}, 'eval': {'evaluator': {'eval_freq': 100}}}}
MAX_TRAIN_ITER = 300
CHECKPOINT_FREQ = 25


def train_args(dataset: str, exp_name: str) -> list:
    return ['train', '--algo', 'cql', '--env', 'Pendulum-v1', '--dataset', dataset, '--seed', '3', '--max-train-iter',
            str(MAX_TRAIN_ITER), '--checkpoint-freq', str(CHECKPOINT_FREQ), '--config', json.dumps(OVERRIDES),
            '--exp-name', exp_name]


def checkpoint_iter(path) -> int:
    try:
        return torch.load(path, weights_only=False)['ctx']['train_iter']
    except Exception:  # not written yet
        return -1


def assert_identical(a, b, where: str) -> None:
    assert type(a) is type(b), where
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            assert_identical(a[key], b[key], f'{where}.{key}')
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_identical(x, y, f'{where}[{i}]')
    elif isinstance(a, torch.Tensor):
        assert torch.equal(a, b), f'{where} differs'
    else:
        assert a == b, where


@pytest.fixture
def dataset(tmp_path):
    from dizoo.classic_control.pendulum.entry.pendulum_make_dataset import make_dataset
    path = str(tmp_path / 'random.pkl')
    make_dataset(path, kind='random', episodes=2, data_type='naive')  # 400 uniform-action transitions
    return path


@pytest.mark.slow
def test_sigkilled_offline_run_resumes_to_identical_weights(tmp_path, dataset, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    env = dict(os.environ, OMP_NUM_THREADS='1')
    victim = subprocess.Popen([sys.executable, '-m', 'ding.entry.cli', *train_args(dataset, 'killed')], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    state_path = tmp_path / 'killed' / 'ckpt' / 'run_state.pt'
    # past the second checkpoint: mid-training
    sigkill_once(victim, lambda: checkpoint_iter(state_path) >= 2 * CHECKPOINT_FREQ, timeout_s=120, poll_s=0.02)
    killed_at = torch.load(state_path, weights_only=False)['ctx']['train_iter']
    assert 2 * CHECKPOINT_FREQ <= killed_at < MAX_TRAIN_ITER
    assert not (tmp_path / 'killed' / 'ckpt' / 'final.pth.tar').exists()

    assert ding_main(train_args(dataset, 'full')) == 0
    capsys.readouterr()

    # the dataset gone, or changed (same size, other bytes): a clear error, the run untouched
    original = open(dataset, 'rb').read()
    shutil.move(dataset, dataset + '.away')
    assert ding_main(['resume', 'killed']) == 2
    assert f'the run trained on {dataset}, which is gone' in capsys.readouterr().err
    shutil.move(dataset + '.away', dataset)
    with open(dataset, 'wb') as f:
        f.write(original[:-1] + bytes([original[-1] ^ 1]))
    assert ding_main(['resume', 'killed']) == 2
    assert 'has changed since the run started (same size, sha256' in capsys.readouterr().err
    with open(dataset, 'wb') as f:
        f.write(original)
    assert checkpoint_iter(state_path) == killed_at

    assert ding_main(['resume', 'killed']) == 0
    out = capsys.readouterr().out
    assert f'from train_iter={killed_at}' in out and f'finished: train_iter={MAX_TRAIN_ITER}' in out
    full, killed = tmp_path / 'full' / 'ckpt', tmp_path / 'killed' / 'ckpt'
    for name in ('final.pth.tar', 'eval.pth.tar'):  # networks, optimiser moments, CQL's alphas
        assert_identical(torch.load(full / name, weights_only=False), torch.load(killed / name, weights_only=False),
                         name)
    end_full, end_killed = torch.load(full / 'run_state.pt', weights_only=False), torch.load(
        killed / 'run_state.pt', weights_only=False)
    assert end_full['finished'] and end_killed['finished']
    assert end_full['ctx'] == end_killed['ctx']  # counters, last evaluation's return and iteration
    # result.json reads as one run across the kill (the rows after its checkpoint were dropped): evaluations
    # before the updates 0, 100 and 200, then the end's row
    rows = {run: [json.loads(line) for line in open(tmp_path / run / 'result.json') if line.strip()]
            for run in ('full', 'killed')}
    assert [r['train_iter'] for r in rows['full']] == [1, 101, 201, MAX_TRAIN_ITER]
    assert [(r['train_iter'], r['eval_return_mean']) for r in rows['killed']] == \
        [(r['train_iter'], r['eval_return_mean']) for r in rows['full']]
    assert ding_main(['resume', 'killed']) == 0  # a finished run: nothing to do
    assert f'already finished at train_iter={MAX_TRAIN_ITER}' in capsys.readouterr().out


def test_dataset_directory_fingerprint_sees_contents_and_names(tmp_path):
    from ding.data.dataset_fingerprint import DatasetChanged, check_dataset_fingerprint, dataset_fingerprint
    (tmp_path / 'data').mkdir()
    (tmp_path / 'data' / 'a.bin').write_bytes(b'12345')
    recorded = dataset_fingerprint(str(tmp_path))
    assert recorded['size'] == 5
    check_dataset_fingerprint(recorded)  # unchanged: no error
    (tmp_path / 'data' / 'a.bin').rename(tmp_path / 'data' / 'b.bin')
    with pytest.raises(DatasetChanged, match='same size'):
        check_dataset_fingerprint(recorded)
    (tmp_path / 'data' / 'b.bin').write_bytes(b'123456')
    with pytest.raises(DatasetChanged, match='now 6 bytes, the run trained on 5 bytes'):
        check_dataset_fingerprint(recorded)


@pytest.mark.slow
def test_sigkilled_decision_transformer_run_resumes_to_identical_weights(tmp_path, monkeypatch):
    # DT's path through `ding train --dataset` (episode windows, its warm-up schedule, dropout's random
    # stream, an evaluator on reward-in-observation envs): killed mid-training, resumed, it ends as a run
    # that was never killed
    pytest.importorskip('h5py')
    from tests.offline.test_dt import mixed_cartpole_dataset
    monkeypatch.chdir(tmp_path)
    data = mixed_cartpole_dataset(str(tmp_path / 'mixed.hdf5'))
    overrides = json.dumps({'env': {'evaluator_env_num': 1, 'n_evaluator_episode': 1},
                            'policy': {'eval': {'evaluator': {'eval_freq': 100}}}})

    def args(name):
        return ['train', '--algo', 'dt', '--env', 'CartPole-v1', '--dataset', data, '--seed', '3', '--max-train-iter',
                '250', '--checkpoint-freq', str(CHECKPOINT_FREQ), '--config', overrides, '--exp-name', name]

    victim = subprocess.Popen([sys.executable, '-m', 'ding.entry.cli', *args('killed')],
                              env=dict(os.environ, OMP_NUM_THREADS='1'), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    state_path = tmp_path / 'killed' / 'ckpt' / 'run_state.pt'
    sigkill_once(victim, lambda: checkpoint_iter(state_path) >= 4 * CHECKPOINT_FREQ, timeout_s=180, poll_s=0.02)
    assert ding_main(args('full')) == 0
    assert ding_main(['resume', 'killed']) == 0
    full, killed = tmp_path / 'full', tmp_path / 'killed'
    for name in ('final.pth.tar', 'eval.pth.tar'):
        assert_identical(torch.load(full / 'ckpt' / name, weights_only=False),
                         torch.load(killed / 'ckpt' / name, weights_only=False), name)
    rows = {run: [(r['train_iter'], r['eval_return_mean']) for r in map(json.loads, open(run / 'result.json'))]
            for run in (full, killed)}
    assert rows[full] == rows[killed] and rows[full][0][0] == 1, rows
