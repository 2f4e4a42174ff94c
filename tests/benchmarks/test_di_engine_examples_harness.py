"""benchmarks/di_engine/di_engine_examples.py's runner, on stand-in programs instead of DI-engine's: how it
reads an example's end (finished, still running at the limit, error), keeps the output in
--log-dir while the example runs, and links dt.py's dataset where its config looks."""
import os

import pytest

from benchmarks.di_engine import di_engine_examples as harness

FINISHES = '''
print("evaluation: env_step=10 train_iter=5 return mean=1.50 std=0.1 (8 episodes)")
print("evaluation: env_step=20 train_iter=9 return mean=3.25 std=0.1 (8 episodes)")
print("stop_value 3.0 reached: eval return 3.25 at env_step=20")
'''
RUNS_ON = '''
import time
print("evaluation: env_step=10 train_iter=5 return mean=-2.00 std=0.1 (8 episodes)", flush=True)
time.sleep(60)
'''
FAILS = '''
raise KeyError("no such key")
'''


def run_stand_in(monkeypatch, tmp_path, source, timeout=30.0):
    monkeypatch.setattr(harness, 'example_source', lambda name: source)
    folder, logs = tmp_path / 'work', tmp_path / 'logs'
    folder.mkdir()
    logs.mkdir()
    return harness.run_one('fake', str(folder), timeout, str(logs)), logs / 'fake.log'


def test_a_finished_example_reports_its_evaluations_and_keeps_its_log(monkeypatch, tmp_path):
    row, log = run_stand_in(monkeypatch, tmp_path, FINISHES)
    assert row['status'] == 'finished' and row['stop_reached']
    assert row['evaluations'] == 2 and row['best_eval_return_mean'] == 3.25
    assert row['last_eval'] == {'env_step': 20, 'train_iter': 9, 'return_mean': 3.25}
    assert row['eval_curve'] == [[5, 1.5], [9, 3.25]]
    assert 'stop_value 3.0 reached' in log.read_text()


def test_an_example_still_training_at_the_limit_is_running_with_its_output_so_far(monkeypatch, tmp_path):
    row, log = run_stand_in(monkeypatch, tmp_path, RUNS_ON, timeout=3.0)
    assert row['status'] == 'running' and not row['stop_reached']
    assert row['last_eval']['return_mean'] == -2.0 and row['seconds'] < 30


def test_an_example_that_raises_is_an_error_naming_the_exception(monkeypatch, tmp_path):
    row, _ = run_stand_in(monkeypatch, tmp_path, FAILS)
    assert row['status'] == 'error' and row['error'].startswith('KeyError')


def test_dt_dataset_is_linked_where_the_config_reads_it_or_named_when_missing(tmp_path):
    from dizoo.box2d.lunarlander.config.lunarlander_dt_config import DATA_PATH
    data = tmp_path / 'episodes.pkl'
    data.write_bytes(b'episodes')
    harness.link_dt_dataset(str(data), str(tmp_path / 'work'))
    assert (tmp_path / 'work' / DATA_PATH).read_bytes() == b'episodes'
    with pytest.raises(SystemExit, match='lunarlander_dt_make_dataset'):
        harness.link_dt_dataset(str(tmp_path / 'missing.pkl'), str(tmp_path / 'other'))
    assert not os.path.exists(tmp_path / 'other')


def test_each_variant_is_its_example_with_one_stated_change():
    for name, (example, old, new) in harness.VARIANTS.items():
        original, changed = harness.gymnasium_source(example), harness.example_source(name)
        assert original.count(old) == 1 and changed == original.replace(old, new), name
