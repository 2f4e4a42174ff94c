"""`serial_pipeline_offline` / `ding -m serial_offline`: trains on the config's dataset, writes
checkpoints, and a resumed run ends exactly where an uninterrupted one does."""
import copy
import json
import os

import pytest
import torch
from easydict import EasyDict

from ding.entry import serial_pipeline_offline
from dizoo.classic_control.pendulum.config.pendulum_cql_config import create_config, main_config
from dizoo.classic_control.pendulum.entry.pendulum_make_dataset import make_dataset


@pytest.fixture(scope='module')
def random_dataset(tmp_path_factory):
    path = str(tmp_path_factory.mktemp('data') / 'random.pkl')
    make_dataset(path, kind='random', episodes=2, data_type='naive')  # no expert needed: uniform actions
    return path


def small_cql(data_path, exp_name):
    main = EasyDict(copy.deepcopy(main_config))
    main.exp_name = exp_name
    main.env.update(evaluator_env_num=1, n_evaluator_episode=1)
    main.policy.cuda = False
    main.policy.model.update(actor_head_hidden_size=16, critic_head_hidden_size=16)
    main.policy.learn.update(batch_size=32, num_actions=2)
    main.policy.collect.update(data_type='naive', data_path=data_path)
    main.policy.eval.evaluator.eval_freq = 1000
    return main, copy.deepcopy(create_config)


def weights(policy):
    return {k: v.clone() for k, v in policy.learn_mode.state_dict()['model'].items()}


def test_offline_run_writes_checkpoints_and_resumes_exactly(tmp_path, random_dataset):
    straight = serial_pipeline_offline(small_cql(random_dataset, str(tmp_path / 'a')), seed=3, max_train_iter=30,
                                       checkpoint_freq=10, save_cfg=False)
    assert straight.final_ctx.train_iter == 30 and straight.final_ctx.train_epoch == 2  # 400 rows, 32 a batch
    assert {'final.pth.tar', 'eval.pth.tar', 'iteration_10.pth.tar', 'run_state.pt'} <= set(
        os.listdir(tmp_path / 'a' / 'ckpt'))
    serial_pipeline_offline(small_cql(random_dataset, str(tmp_path / 'b')), seed=3, max_train_iter=20,
                            checkpoint_freq=10, save_cfg=False)
    resumed = serial_pipeline_offline(small_cql(random_dataset, str(tmp_path / 'b')), seed=3, max_train_iter=30,
                                      checkpoint_freq=10, save_cfg=False, resume=True)
    assert resumed.final_ctx.train_iter == 30
    a, b = weights(straight), weights(resumed)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_cli_serial_offline_mode(tmp_path, random_dataset, capsys):
    from ding.entry.serial import main
    config = tmp_path / 'cql_config.py'
    config.write_text(
        'from easydict import EasyDict\n'
        'from tests.offline.test_serial_offline import small_cql\n'
        f'main_config, create_config = small_cql({random_dataset!r}, {str(tmp_path / "run")!r})\n')
    assert main(['-m', 'serial_offline', '-c', str(config), '--max-train-iter', '5']) == 0
    assert 'finished: train_iter=5' in capsys.readouterr().out
    assert os.path.isfile(tmp_path / 'run' / 'ckpt' / 'final.pth.tar')
    recorded = json.loads((tmp_path / 'run' / 'run.json').read_text())
    assert (recorded['algo'], recorded['env'], recorded['mode']) == ('cql', 'pendulum', 'serial_offline')
    assert recorded['source'] == str(config) and recorded['offline']
    assert main(['-m', 'serial_offline', '-c', str(config), '--max-train-iter', '8', '--resume']) == 0
    assert 'finished: train_iter=8' in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ['run']  # the same run directory
    config.write_text(config.read_text().replace('"run"', '"fresh"').replace("/run'", "/fresh'"))
    with pytest.raises(FileNotFoundError, match='no run-state checkpoint'):
        main(['-m', 'serial_offline', '-c', str(config), '--resume'])
