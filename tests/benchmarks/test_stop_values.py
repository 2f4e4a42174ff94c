"""benchmarks/learning/stop_values.py, which runs shipped configs against their own stop values,
and what its results and the configs' cited sources promise: a recorded entry holds the config's
current stop value (a changed config makes its record stale, and this fails), and a config that
names a published source names its own stop value in it."""
import importlib
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path += [str(ROOT / 'benchmarks' / 'learning')]  # appended: never shadows

import stop_values  # noqa: E402

RESULTS = [ROOT / 'benchmarks' / 'results' / name for name in ('stop_values.json', 'd4rl_stop_values.json')]
SOURCED = sorted(str(p.relative_to(ROOT)) for p in (ROOT / 'dizoo').rglob('*_config.py')
                 if 'STOP_VALUE_SOURCE = ' in p.read_text())


def test_evaluations_are_read_from_progress_csv_by_env_step_or_update(tmp_path):
    (tmp_path / 'progress.csv').write_text('env_step,train_iter,eval_return_mean,time_s\n'
                                           '8,0,12.3456,1.0\n96,500,,2.0\n200,1000,250.0604,3.0\n')
    assert stop_values.evaluations(str(tmp_path), 'train_iter') == [[0, 12.346], [1000, 250.06]]
    assert stop_values.evaluations(str(tmp_path), 'env_step') == [[8, 12.346], [200, 250.06]]


def test_a_sitting_replaces_its_configs_and_keeps_the_others(tmp_path):
    path = tmp_path / 'results.json'
    stop_values.write_merged(str(path), {'configs': {'a': {'runs': [1]}, 'b': {'runs': [2]}}})
    stop_values.write_merged(str(path), {'configs': {'b': {'runs': [3]}}})
    assert json.loads(path.read_text()) == {'benchmark': 'stop_values',
                                            'configs': {'a': {'runs': [1]}, 'b': {'runs': [3]}}}


@pytest.mark.parametrize('args, message', [(['--seeds', '1000', '3'], 'seed 3'),
                                           (['--seeds', '1000'], 'PATH=BUDGET')])
def test_a_tuning_seed_or_a_missing_budget_is_refused_before_anything_trains(args, message, monkeypatch, capsys):
    monkeypatch.setattr(stop_values, 'one_run', lambda *a: pytest.fail('trained'))
    monkeypatch.setattr(sys, 'argv', ['stop_values.py', '--configs', 'dizoo/bitflip/config/bitflip_pure_dqn_config.py',
                                      *args])
    with pytest.raises(SystemExit) as stop:
        stop_values.main()
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_online_and_offline_configs_are_told_apart_by_their_policy():
    assert not stop_values.is_offline(stop_values.load_config('dizoo/bitflip/config/bitflip_pure_dqn_config.py'))
    assert stop_values.is_offline(stop_values.load_config(
        'dizoo/classic_control/pendulum/config/pendulum_bcq_config.py'))


def recorded():
    """(name, entry) of every config run by stop_values.py or d4rl_stop_values.py (whose older
    entries name no config file: theirs is dizoo/d4rl/config/<name>_config.py)."""
    return sorted((name, dict(entry, config=entry.get('config', f'dizoo/d4rl/config/{name}_config.py')))
                  for path in RESULTS for name, entry in json.loads(path.read_text())['configs'].items())


@pytest.mark.parametrize('name, entry', recorded(), ids=[name for name, _ in recorded()])
def test_a_record_holds_its_configs_current_stop_value_and_its_verdict(name, entry):
    module = stop_values.load_config(entry['config'])
    assert stop_values.config_name(entry['config']) == name
    assert float(module.main_config.env.stop_value) == float(entry['stop_value']), 'the config changed: run it again'
    for run in entry['runs']:
        reached = [step for step, ret in run['evaluations'] if ret >= entry['stop_value']]
        assert run['stop_value_reached_at'] == (reached[0] if reached else None)
        assert run['seed'] >= 1000  # reported on held-out seeds only
    reached = sum(r['stop_value_reached_at'] is not None for r in entry['runs'])
    assert entry['reached'] == f"{reached}/{len(entry['runs'])}"


@pytest.mark.parametrize('path', SOURCED)
def test_a_cited_source_names_the_configs_own_stop_value(path):
    module = stop_values.load_config(path)
    value = float(module.main_config.env.stop_value)
    assert f'{value:,g}' in module.STOP_VALUE_SOURCE, (value, module.STOP_VALUE_SOURCE)
    assert re.search(r'et al\. \d{4}|& \w+ \d{4}', module.STOP_VALUE_SOURCE), 'name the paper: authors and year'
