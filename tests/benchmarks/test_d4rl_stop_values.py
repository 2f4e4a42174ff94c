"""benchmarks/learning/d4rl_stop_values.py and the offline configs it runs: each config's
stop value is the raw return of the published normalised score its STOP_VALUE_SOURCE cites; the
driver refuses a tuning seed before anything trains, and reads a run's evaluations from its
progress.csv."""
import importlib
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path += [str(ROOT / 'benchmarks' / 'learning')]  # appended: never shadows

import d4rl_stop_values  # noqa: E402

# D4RL's reference returns (d4rl/infos.py): random and expert play
REFERENCE_RETURNS = {'hopper': (-20.272305, 3234.3), 'halfcheetah': (-280.178953, 12135.0)}


@pytest.mark.parametrize('name', ['hopper_medium_td3bc', 'hopper_medium_cql', 'hopper_medium_bcq',
                                  'hopper_medium_edac', 'halfcheetah_medium_td3bc', 'halfcheetah_medium_cql',
                                  'halfcheetah_medium_edac'])
def test_the_stop_value_is_the_cited_published_score(name):
    module = importlib.import_module(f'dizoo.d4rl.config.{name}_config')
    score = float(re.search(r'([\d.]+) normalised', module.STOP_VALUE_SOURCE).group(1))
    random, expert = REFERENCE_RETURNS[name.split('_')[0]]
    raw = random + score / 100 * (expert - random)
    assert module.main_config.env.stop_value == round(raw)
    assert f'{round(raw):,} raw' in module.STOP_VALUE_SOURCE


def test_a_tuning_seed_is_refused_before_anything_trains(monkeypatch, capsys):
    monkeypatch.setattr(d4rl_stop_values, 'one_run', lambda *a: pytest.fail('trained on a refused seed'))
    monkeypatch.setattr(sys, 'argv', ['d4rl_stop_values.py', '--seeds', '1000', '3'])
    with pytest.raises(SystemExit) as stop:
        d4rl_stop_values.main()
    assert stop.value.code == 2 and 'seed 3' in capsys.readouterr().err


def test_evaluations_are_read_from_progress_csv(tmp_path):
    (tmp_path / 'progress.csv').write_text('env_step,train_iter,eval_return_mean,time_s\n'
                                           '0,0,12.34,1.0\n0,500,,2.0\n0,1000,250.06,3.0\n')
    assert d4rl_stop_values.evaluations(str(tmp_path)) == [[0, 12.3], [1000, 250.1]]


def test_a_sitting_replaces_its_configs_and_keeps_the_others(tmp_path):
    path = tmp_path / 'results.json'
    d4rl_stop_values.write_merged(str(path), {'configs': {'a': {'runs': [1]}, 'b': {'runs': [2]}}})
    d4rl_stop_values.write_merged(str(path), {'configs': {'b': {'runs': [3]}}})
    assert json.loads(path.read_text())['configs'] == {'a': {'runs': [1]}, 'b': {'runs': [3]}}
