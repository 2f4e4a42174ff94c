"""Offline pairs in `ding list`: a tuned file with an update budget and a dataset recipe; `ding train`
without --dataset says how to make the dataset; with it, the pair's threshold and budget apply."""
import pytest

from ding.entry.catalog import read_tuned
from ding.entry.cli import main

PAIR = """algo: iql
env: Pendulum-v1
threshold: -400
base_config: dizoo.classic_control.pendulum.config.pendulum_iql_config
"""


@pytest.mark.parametrize('extra, message', [
    ('budget_train_iter: 10\n', 'needs a `dataset` recipe'),
    ('budget_env_steps: 10\ndataset: {expert: sac_pendulum-v1.yaml, episodes: 5, eps: 0.5}\n', 'and only it has one'),
    ('budget_env_steps: 10\nbudget_train_iter: 10\n', 'exactly one of'),
    ('', 'exactly one of'),
    ('budget_train_iter: 10\ndataset: {expert: sac_pendulum-v1.yaml, episodes: 5}\n', 'dataset needs exactly the keys'),
])
def test_a_tuned_file_is_online_or_offline_with_a_recipe(tmp_path, extra, message):
    path = tmp_path / 'pair.yaml'
    path.write_text(PAIR + extra)
    with pytest.raises(ValueError, match=message):
        read_tuned(str(path))


def test_offline_pair_without_a_dataset_names_the_recipe(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(['train', '--algo', 'iql', '--env', 'Pendulum-v1']) == 2
    err = capsys.readouterr().err
    assert 'iql on Pendulum-v1 trains offline: give --dataset PATH' in err
    assert '`ding train -f sac_pendulum-v1.yaml --exp-name expert`' in err and '--episodes 50 --eps 0.5' in err


def test_offline_pair_sets_the_stop_value_and_the_update_budget():
    from ding.entry.train_offline import offline_config
    main_cfg, create, info = offline_config('td3_bc', 'Pendulum-v1')
    assert main_cfg.env.stop_value == -400 and main_cfg.policy.learn.alpha == 10.0
    assert info['threshold'] == -400 and info['budget_train_iter'] == 7000
    assert info['source'].endswith('td3_bc_pendulum-v1.yaml')
    _, create, dizoo_only = offline_config('cql', 'CartPole-v0')  # no tuned pair: the dizoo config, no budget
    assert dizoo_only == {'source': 'dizoo.classic_control.cartpole.config.cartpole_cql_config'}
    assert create.policy.type == 'discrete_cql'


def test_decision_transformer_trains_from_the_cli_on_a_transitions_file(tmp_path, monkeypatch):
    # `ding train --algo dt --dataset FILE.hdf5`: the file is read as episodes' windows (not as
    # transitions, which the path alone would say), states are normalised by the dataset's
    # statistics, and the evaluator's envs give the last reward with the observation, without
    # which DTPolicy's evaluation raises.
    import json

    pytest.importorskip('h5py')
    from tests.offline.test_dt import mixed_cartpole_dataset
    monkeypatch.chdir(tmp_path)
    dataset = mixed_cartpole_dataset(str(tmp_path / 'mixed.hdf5'))
    overrides = json.dumps({'policy': {'eval': {'evaluator': {'eval_freq': 20}}}})
    assert main(['train', '--algo', 'dt', '--env', 'CartPole-v1', '--dataset', dataset, '--max-train-iter', '40',
                 '--config', overrides, '--exp-name', 'dt_run', '--no-progress']) == 0
    rows = (tmp_path / 'dt_run' / 'progress.csv').read_text().splitlines()
    header = rows[0].split(',')
    returns = [r.split(',')[header.index('eval_return_mean')] for r in rows[1:]]
    assert sum(1 for r in returns if r) >= 2  # evaluated at the start and at update 20
    from ding.entry.train_offline import offline_config
    main_cfg, _, info = offline_config('dt', 'CartPole-v1')
    assert main_cfg.policy.collect.data_type == 'sequence' and info['threshold'] == 475
