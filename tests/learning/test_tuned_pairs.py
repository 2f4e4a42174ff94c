"""Every `ding list` pair reaches its threshold through `ding train` (the CLI entry, in process)
within its env-step budget, on seed 1000: the tuned configs were tuned on seeds 0-99 only, so
this is a seed nothing was tuned on (issue 39). MinAtar and Atari pairs are left to the
real-workload runs (their stop values are published figures, hours of training each)."""
import json
import os

import pytest

from ding.entry.catalog import tuned_configs
from ding.entry.cli import main

HELD_OUT_SEED = 1000
PIXEL_ENVS = ('MinAtar', 'ALE/', 'NoFrameskip')  # not trained in CI


def ci_pairs():
    return [t for t in tuned_configs() if not any(mark in t.env for mark in PIXEL_ENVS)]


def evaluations(run_dir: str):
    with open(os.path.join(run_dir, 'result.json')) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [(r['env_step'], r['eval_return_mean']) for r in rows if r.get('eval_return_mean') is not None]


@pytest.mark.slow
@pytest.mark.parametrize('tuned', ci_pairs(), ids=lambda t: f'{t.algo}-{t.env}')
def test_pair_reaches_its_threshold_on_a_held_out_seed(tmp_path, monkeypatch, tuned):
    monkeypatch.chdir(tmp_path)
    run_dir = str(tmp_path / 'run')
    assert main(['train', '--algo', tuned.algo, '--env', tuned.env, '--seed', str(HELD_OUT_SEED), '--no-progress',
                 '--checkpoint-freq', str(10 ** 9), '--exp-name', run_dir]) == 0
    evals = evaluations(run_dir)
    reached = [(step, value) for step, value in evals if value >= tuned.threshold]
    assert reached, f'{tuned.algo} on {tuned.env} never reached {tuned.threshold} in {tuned.budget_env_steps} ' \
                    f'env steps: {evals}'
    assert reached[0][0] <= tuned.budget_env_steps, (reached[0], tuned.budget_env_steps)
