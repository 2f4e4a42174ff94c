"""Imitation pairs (SQIL) from the CLI: `ding train --algo sqil --env CartPole-v1 --dataset DEMOS`
learns online from a file of demonstrations (issue 39, item 3). The file's transitions become
the expert buffer with reward 1, the agent's own get 0, each batch is half of each, run.json
records the file's fingerprint, and a SIGKILLed run resumes to the same weights."""
import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
import torch

from ding.entry.catalog import read_tuned
from ding.entry.cli import main
from tests.resume.kill_helpers import sigkill_once

SMALL = {'policy': {'random_collect_size': 64, 'eval': {'evaluator': {'eval_freq': 40}},
                    'learn': {'batch_size': 32, 'update_per_collect': 2}},
         'env': {'n_evaluator_episode': 2}}


def scripted_demonstrations(path: str, episodes: int = 3) -> str:
    """CartPole-v1 episodes of a pole-balancing rule, written as `ding collect` writes them."""
    pytest.importorskip('h5py')
    from ding.data.offline_save import save_offline_data
    env = gym.make('CartPole-v1')
    rows = {k: [] for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated')}
    for episode in range(episodes):
        obs, _ = env.reset(seed=episode)
        ended = False
        while not ended:
            action = int(obs[2] + 0.5 * obs[3] > 0)
            next_obs, reward, terminated, truncated, _ = env.step(action)
            for key, value in zip(rows, (obs, action, reward, next_obs, terminated, truncated)):
                rows[key].append(value)
            obs, ended = next_obs, terminated or truncated
    columns = {k: np.asarray(v, dtype=np.float32 if k in ('obs', 'next_obs', 'reward') else None)
               for k, v in rows.items()}
    return save_offline_data(columns, path, 'hdf5')


@pytest.fixture
def demos(tmp_path):
    return scripted_demonstrations(str(tmp_path / 'demos.hdf5'))


def test_an_imitation_recipe_is_for_online_pairs_only(tmp_path):
    head = 'algo: sqil\nenv: CartPole-v1\nthreshold: 475\nbase_config: ' \
           'dizoo.classic_control.cartpole.config.cartpole_sqil_demos_config\n'
    recipe = 'demonstrations: {expert: dqn_cartpole-v1.yaml, episodes: 20, eps: 0.0}\n'
    cases = [('budget_train_iter: 10\ndataset: {expert: a.yaml, episodes: 1, eps: 0}\n' + recipe, 'for online'),
             ('budget_env_steps: 10\ndemonstrations: {expert: a.yaml, episodes: 1}\n', 'demonstrations needs')]
    for extra, message in cases:
        path = tmp_path / 'pair.yaml'
        path.write_text(head + extra)
        with pytest.raises(ValueError, match=message):
            read_tuned(str(path))
    path.write_text(head + 'budget_env_steps: 10\n' + recipe)
    assert read_tuned(str(path)).demonstrations == {'expert': 'dqn_cartpole-v1.yaml', 'episodes': 20, 'eps': 0.0}


def test_without_demonstrations_the_cli_names_the_recipe(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(['train', '--algo', 'sqil', '--env', 'CartPole-v1']) == 2
    err = capsys.readouterr().err
    assert 'sqil imitates an expert: give --dataset PATH' in err
    assert '`ding train -f dqn_cartpole-v1.yaml --exp-name expert`' in err and '--episodes 20 --eps 0.0' in err
    assert not os.listdir(tmp_path)  # nothing started


def test_sqil_trains_from_the_cli_on_half_agent_half_expert_batches(tmp_path, monkeypatch, demos):
    from ding.data.dataset_fingerprint import dataset_fingerprint
    from ding.policy.sqil import SQILPolicy
    seen = []
    forward = SQILPolicy._forward_learn

    def spy(self, data):
        seen.append(np.asarray(data.reward).copy())
        return forward(self, data)

    monkeypatch.setattr(SQILPolicy, '_forward_learn', spy)
    monkeypatch.chdir(tmp_path)
    assert main(['train', '--algo', 'sqil', '--env', 'CartPole-v1', '--dataset', demos, '--max-env-step', '200',
                 '--config', json.dumps(SMALL), '--exp-name', 'run', '--no-progress']) == 0
    assert seen and all(np.array_equal(r, np.repeat([0.0, 1.0], 16)) for r in seen)  # the env's reward never
    meta = json.loads((tmp_path / 'run' / 'run.json').read_text())
    assert meta['demonstrations'] == dataset_fingerprint(demos)
    assert meta['main_config']['policy']['collect']['data_path'] == os.path.abspath(demos)


def test_a_changed_demonstrations_file_is_refused_on_resume(tmp_path, monkeypatch, demos, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(['train', '--algo', 'sqil', '--env', 'CartPole-v1', '--dataset', demos, '--max-env-step', '200',
                 '--checkpoint-freq', '100', '--config', json.dumps(SMALL), '--exp-name', 'run',
                 '--no-progress']) == 0
    state_path = tmp_path / 'run' / 'ckpt' / 'run_state.pt'  # as if stopped before its end
    state = torch.load(state_path, weights_only=False)
    torch.save({**state, 'finished': False}, state_path)
    scripted_demonstrations(demos, episodes=2)
    capsys.readouterr()
    assert main(['resume', 'run']) == 2
    assert 'cannot resume: the dataset' in capsys.readouterr().err


@pytest.mark.parametrize('key, value, message', [
    ('collect', {'model_path': 'expert/ckpt/eval.pth.tar'}, 'names an online expert'),
    ('nstep', 3, 'policy.nstep=3: SQIL relabels single transitions'),
])
def test_keys_this_pipeline_cannot_honour_are_refused(tmp_path, monkeypatch, demos, capsys, key, value, message):
    monkeypatch.chdir(tmp_path)
    overrides = {'policy': {key: value}}
    assert main(['train', '--algo', 'sqil', '--env', 'CartPole-v1', '--dataset', demos, '--max-env-step', '100',
                 '--config', json.dumps(overrides), '--exp-name', 'run', '--no-progress']) == 2
    assert message in capsys.readouterr().err


def test_sqil_sac_refuses_random_steps_labelled_as_expert(tmp_path, monkeypatch, capsys):
    from ding.config import compile_config
    from ding.entry.pipeline import load_demonstrations
    from dizoo.classic_control.pendulum.config import pendulum_sqil_sac_config as di_engine
    cfg = compile_config(di_engine.main_config, create_cfg=di_engine.create_config, auto=True, save_cfg=False)
    cfg.policy.collect.model_path = None
    with pytest.raises(ValueError, match='expert_random_collect_size=1000 would label random actions as expert'):
        load_demonstrations(cfg)


def ding(*args: str) -> list:
    return [sys.executable, '-m', 'ding.entry.cli', *args]


@pytest.mark.slow
def test_a_sigkilled_sqil_run_resumes_to_identical_weights(tmp_path):
    demos = scripted_demonstrations(str(tmp_path / 'demos.hdf5'))
    overrides = json.dumps({**SMALL, 'policy': {**SMALL['policy'], 'eval': {'evaluator': {'eval_freq': 100}}}})

    def train(name):
        return ding('train', '--algo', 'sqil', '--env', 'CartPole-v1', '--dataset', demos, '--seed', '3',
                    '--max-env-step', '1200', '--checkpoint-freq', '200', '--config', overrides, '--exp-name', name,
                    '--no-progress')

    full = subprocess.Popen(train('full'), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    victim = subprocess.Popen(train('killed'), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    state = tmp_path / 'killed' / 'ckpt' / 'run_state.pt'

    def past_second_checkpoint():
        try:
            return torch.load(state, weights_only=False)['ctx']['env_step'] >= 400
        except Exception:  # not written yet
            return False

    sigkill_once(victim, past_second_checkpoint, timeout_s=240)
    resumed = subprocess.run(ding('resume', 'killed', '--no-progress'), cwd=tmp_path, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert full.wait() == 0, full.stderr.read().decode()
    final = [torch.load(tmp_path / run / 'ckpt' / 'final.pth.tar', weights_only=False) for run in ('full', 'killed')]
    assert final[0]['learn_step'] == final[1]['learn_step'] > 0
    for name, tensor in final[0]['model'].items():
        assert torch.equal(tensor, final[1]['model'][name]), name
    learning = [[(r['env_step'], r['eval_return_mean'], r.get('train_total_loss'), r.get('train_expert_td_error'))
                 for r in map(json.loads, (tmp_path / run / 'result.json').read_text().splitlines())]
                for run in ('full', 'killed')]  # (timings differ)
    assert len(learning[0]) >= 3 and learning[0] == learning[1]
