"""benchmarks/throughput/atari_split.py: the scaling model, the tables generated from its JSON, and
the split and one timed run on the real ALE for a moment (DQN on Pong, one process)."""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / 'benchmarks' / 'throughput'))

import atari_split  # noqa: E402

# ms per env step: collecting costs 1.0 (env 0.8 + forward 0.2), learning 1.0, the hop 0.5
SPLIT = dict(env_step_s=8e-4, forward_s=2e-4, collect_s=1e-3, learn_s=1e-3, subprocess_step_wall_s=4e-4,
             object_store_s=5e-4)


def test_the_model_overlaps_what_the_cores_allow():
    two = atari_split.predict(SPLIT, cores=2, collectors=1)
    assert two['sync'] == pytest.approx(1 / (0.4e-3 + 0.2e-3 + 1e-3))  # the envs' wall time, then the update
    assert two['async_'] == pytest.approx(1000)  # the slower side (learning) sets the pace
    assert two['ray'] == pytest.approx(1 / 1.5e-3)  # one collector: its cost and the hop
    # two collectors on two cores: the work of three processes and two hops must fit in the cores
    assert atari_split.predict(SPLIT, cores=2, collectors=2)['ray'] == pytest.approx(2 / 3e-3)
    # with cores to spare, the learner and its hop bound it
    assert atari_split.predict(SPLIT, cores=32, collectors=16)['ray'] == pytest.approx(1 / 1.5e-3)
    assert 'ray' not in atari_split.predict(dict(SPLIT, object_store_s=None), cores=2, collectors=1)  # no Ray


@pytest.mark.parametrize('path', sorted((ROOT / 'benchmarks' / 'results').glob('atari_split*.json')),
                         ids=lambda p: p.name)
def test_each_results_file_renders_every_run_against_sync(path):
    data = json.loads(path.read_text())
    table = atari_split.markdown(data)
    for workload, row in data['workloads'].items():
        for mode, run in row.get('runs', {}).items():  # uint8-frame runs are read against uint8 sync
            sync = row['runs']['sync_uint8' if mode.endswith('_uint8') else 'sync']['env_steps_per_s']
            assert f"| {workload} | {mode} | {run['env_steps_per_s']:,.0f} |" in table
            assert f"{run['env_steps_per_s'] / sync:.2f}x" in table
        # every run kept the workload's updates per env step (within the rounding of a window)
        for run in row.get('runs', {}).values():
            assert run['updates_per_env_step'] == pytest.approx(row['ratio'], rel=0.35)


@pytest.mark.slow  # starts the ALE in 8 worker processes
def test_a_short_sitting_writes_the_split_and_a_run_at_the_ratio(tmp_path, monkeypatch):
    out = tmp_path / 'atari_split.json'
    monkeypatch.setattr(sys, 'argv', ['atari_split.py', '--workload', 'dqn_balanced', '--modes', 'sync',
                                      '--seconds', '3', '--warmup', '3', '--split-steps', '10', '--split-updates', '3',
                                      '--out', str(out)])
    atari_split.main()
    row = json.loads(out.read_text())['workloads']['dqn_balanced']
    split = row['split']
    assert split['learn_s'] == pytest.approx(split['collect_s'])  # balanced: training costs what collecting does
    assert row['runs']['sync']['env_steps_per_s'] > 0
    assert row['runs']['sync']['updates_per_env_step'] == pytest.approx(row['ratio'], rel=0.5)
