"""`ding train -f OFFLINE_CONFIG.py`: a config file whose policy learns from a dataset runs
offline, on `--dataset` when given, else on the config's own data; an online config given a
`--dataset` is a one-line error. Before, `-f` with `--dataset` asked for --algo and --env, and
`-f` alone trained an offline config online, against the env."""
import json
import os
from pathlib import Path

from easydict import EasyDict

from ding.entry.cli import main
from ding.entry.train_offline import learns_from_a_dataset

ROOT = Path(__file__).resolve().parents[2]
CARTPOLE_BC = str(ROOT / 'dizoo' / 'classic_control' / 'cartpole' / 'config' / 'cartpole_bc_config.py')


def test_an_offline_config_file_trains_offline_on_the_given_dataset(tmp_path, monkeypatch, dataset, capsys):
    monkeypatch.chdir(tmp_path)
    small = json.dumps({'env': {'n_evaluator_episode': 1, 'evaluator_env_num': 1}})
    assert main(['train', '-f', CARTPOLE_BC, '--dataset', dataset, '--max-train-iter', '6', '--config', small,
                 '--exp-name', 'bc']) == 0
    meta = json.loads((tmp_path / 'bc' / 'run.json').read_text())
    assert meta['offline'] is True and meta['source'] == CARTPOLE_BC and meta['algo'] == 'bc'
    assert meta['dataset']['path'] == os.path.abspath(dataset)
    assert 'finished: train_iter=6' in capsys.readouterr().out


def test_an_online_config_file_with_a_dataset_is_refused(tmp_path, dataset, capsys):
    online = str(ROOT / 'dizoo' / 'classic_control' / 'cartpole' / 'config' / 'cartpole_dqn_config.py')
    assert main(['train', '-f', online, '--dataset', dataset, '--exp-name', str(tmp_path / 'x')]) == 2
    err = capsys.readouterr().err
    assert "policy (dqn) learns online; give an offline config" in err and not (tmp_path / 'x').exists()


def test_offline_policies_are_told_by_their_class():
    assert learns_from_a_dataset(EasyDict(policy=dict(type='cql', import_names=['ding.policy.cql'])))
    assert learns_from_a_dataset(EasyDict(policy=dict(type='td3_bc')))
    assert not learns_from_a_dataset(EasyDict(policy=dict(type='sac')))
