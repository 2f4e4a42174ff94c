"""benchmarks/learning/d4rl_stop_values.py and the offline configs it runs: each config's
stop value is the raw return of the published normalised score its STOP_VALUE_SOURCE cites, and
the driver refuses a tuning seed before anything trains. Its runner is stop_values.py's
(tests/benchmarks/test_stop_values.py)."""
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
    monkeypatch.setattr(d4rl_stop_values.stop_values, 'one_run', lambda *a: pytest.fail('trained on a refused seed'))
    monkeypatch.setattr(sys, 'argv', ['d4rl_stop_values.py', '--seeds', '1000', '3'])
    with pytest.raises(SystemExit) as stop:
        d4rl_stop_values.main()
    assert stop.value.code == 2 and 'seed 3' in capsys.readouterr().err
