"""Every `ding list` pair reaches its threshold through the CLI (`ding train`, in process) within
its budget, on seed 1000: the tuned configs were tuned on seeds 0-99 only, so this is a seed
nothing was tuned on (issue 39). MinAtar and Atari pairs are left to the real-workload runs
(their stop values are published figures, hours of training each).

An offline pair trains on the dataset its recipe names: `ding collect` of a run of the expert
pair (that pair's own held-out run in this module, made once and shared), then
`ding train --dataset`. An imitation pair (SQIL) trains online from demonstrations made the same way."""
import json
import os

import pytest

from ding.entry.catalog import CONFIG_DIR, read_tuned, tuned_configs
from ding.entry.cli import main

HELD_OUT_SEED = 1000
# Seed 1000 saw two pdqn configurations fail while the pair was tuned: its check is on a seed no run has seen.
HELD_OUT_SEED_OF = {'pdqn_moving-v0.yaml': 1003}
PIXEL_ENVS = ('MinAtar', 'NoFrameskip')  # not trained in CI


def ci_pairs(offline: bool, imitation: bool = False):
    return [t for t in tuned_configs() if t.offline == offline and (t.demonstrations is not None) == imitation
            and not any(m in t.env for m in PIXEL_ENVS)]


def evaluations(run_dir: str, x: str = 'env_step'):
    with open(os.path.join(run_dir, 'result.json')) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [(r[x], r['eval_return_mean']) for r in rows if r.get('eval_return_mean') is not None]


def train_pair(tuned, seed: int, run_dir: str, *extra: str) -> None:
    """`ding train` of a tuned pair on `seed`, in process, with no checkpoints along the way."""
    assert main(['train', '--algo', tuned.algo, '--env', tuned.env, '--seed', str(seed), '--no-progress',
                 '--checkpoint-freq', str(10 ** 9), '--exp-name', run_dir, *extra]) == 0


class HeldOutRuns:
    """One `ding train` run per online pair on the held-out seed, made on first use."""

    def __init__(self, root) -> None:
        self.root, self.runs = root, {}

    def run(self, tuned) -> str:
        name = os.path.basename(tuned.path)
        if name not in self.runs:
            run_dir = str(self.root / name.replace('.yaml', ''))
            train_pair(tuned, HELD_OUT_SEED_OF.get(name, HELD_OUT_SEED), run_dir)
            self.runs[name] = run_dir
        return self.runs[name]


    def dataset(self, recipe) -> str:
        """`ding collect` of the recipe's expert run, made once per recipe."""
        expert_run = self.run(read_tuned(os.path.join(CONFIG_DIR, recipe['expert'])))
        dataset = os.path.join(expert_run, f'episodes{recipe["episodes"]}_eps{recipe["eps"]}.hdf5')
        if not os.path.exists(dataset):
            assert main(['collect', expert_run, '--episodes', str(recipe['episodes']), '--eps', str(recipe['eps']),
                         '--out', dataset]) == 0
        return dataset


@pytest.fixture(scope='module')
def held_out_runs(tmp_path_factory):
    return HeldOutRuns(tmp_path_factory.mktemp('pairs'))


@pytest.mark.slow
@pytest.mark.parametrize('tuned', ci_pairs(offline=False), ids=lambda t: f'{t.algo}-{t.env}')
def test_pair_reaches_its_threshold_on_a_held_out_seed(held_out_runs, tuned):
    evals = evaluations(held_out_runs.run(tuned))
    reached = [(step, value) for step, value in evals if value >= tuned.threshold]
    assert reached, f'{tuned.algo} on {tuned.env} never reached {tuned.threshold} in {tuned.budget_env_steps} ' \
                    f'env steps: {evals}'
    assert reached[0][0] <= tuned.budget_env_steps, (reached[0], tuned.budget_env_steps)


# The pairs whose family learning tests ran on seeds 0-2 (tuning seeds) run on two more held-out
# seeds, so that each of these claims to learn rests on 3 seeds nothing was tuned on.
FAMILY_SEEDS = (1001, 1002)
FAMILY_PAIRS = ('dqn-CartPole-v0', 'dqn-CartPole-v1', 'c51-CartPole-v0', 'qrdqn-CartPole-v0', 'iqn-CartPole-v0',
                'fqf-CartPole-v0', 'rainbow-CartPole-v0', 'ppo-CartPole-v1', 'a2c-CartPole-v1', 'pg-CartPole-v1',
                'ppo-Pendulum-v1', 'sac-Pendulum-v1', 'td3-Pendulum-v1', 'ddpg-Pendulum-v1')


def family_pairs():
    pairs = {f'{t.algo}-{t.env}': t for t in ci_pairs(offline=False)}
    return [pairs[name] for name in FAMILY_PAIRS]


@pytest.mark.slow
@pytest.mark.parametrize('seed', FAMILY_SEEDS)
@pytest.mark.parametrize('tuned', family_pairs(), ids=lambda t: f'{t.algo}-{t.env}')
def test_family_pair_reaches_its_threshold_on_two_more_held_out_seeds(tmp_path, tuned, seed):
    run_dir = str(tmp_path / 'run')
    train_pair(tuned, seed, run_dir)
    evals = evaluations(run_dir)
    reached = [(step, value) for step, value in evals if value >= tuned.threshold]
    assert reached and reached[0][0] <= tuned.budget_env_steps, \
        f'{tuned.algo} on {tuned.env}, seed {seed}: {tuned.threshold} not reached in {tuned.budget_env_steps} env steps: {evals}'


@pytest.mark.slow
@pytest.mark.parametrize('tuned', ci_pairs(offline=True), ids=lambda t: f'{t.algo}-{t.env}-offline')
def test_offline_pair_reaches_its_threshold_on_its_dataset(held_out_runs, tmp_path, monkeypatch, tuned):
    pytest.importorskip('h5py')
    dataset = held_out_runs.dataset(tuned.dataset)  # shared by the pairs that name the same recipe
    monkeypatch.chdir(tmp_path)
    assert main(['train', '--algo', tuned.algo, '--env', tuned.env, '--dataset', dataset, '--seed',
                 str(HELD_OUT_SEED), '--exp-name', 'offline']) == 0
    evals = evaluations('offline', x='train_iter')
    assert any(value >= tuned.threshold for _, value in evals), \
        f'{tuned.algo} on {tuned.env} never reached {tuned.threshold} in {tuned.budget_train_iter} updates: {evals}'


@pytest.mark.slow
@pytest.mark.parametrize('tuned', ci_pairs(offline=False, imitation=True), ids=lambda t: f'{t.algo}-{t.env}')
def test_imitation_pair_reaches_its_threshold_from_its_demonstrations(held_out_runs, tmp_path, tuned):
    pytest.importorskip('h5py')
    demonstrations = held_out_runs.dataset(tuned.demonstrations)
    run_dir = str(tmp_path / 'run')
    train_pair(tuned, HELD_OUT_SEED, run_dir, '--dataset', demonstrations)
    evals = evaluations(run_dir)
    reached = [(step, value) for step, value in evals if value >= tuned.threshold]
    assert reached and reached[0][0] <= tuned.budget_env_steps, \
        f'{tuned.algo} on {tuned.env}: {tuned.threshold} not reached in {tuned.budget_env_steps} env steps: {evals}'
