"""The `ding` command line, run in-process: list, errors with choices, train -> files,
eval with a rendered GIF, resume of a finished run, DI-engine's `-m serial` form."""
import json
import os

import pytest
from PIL import Image

from ding.entry.cli import main

DQN_V1 = ['--algo', 'dqn', '--env', 'CartPole-v1']
# a run of a few collects: no random warm-up (the tuned config's 1,000 steps would outlast it)
SMALL = json.dumps({'env': {'n_evaluator_episode': 2},
                    'policy': {'collect': {'n_sample': 8}, 'learn': {'update_per_collect': 4}, 'random_collect_size': 0,
                               'other': {'replay_buffer': {'replay_buffer_size': 1000}}}})


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_list_shows_every_tuned_pair_with_threshold_and_budget(capsys):
    from ding.entry.catalog import tuned_configs
    assert main(['list']) == 0
    out = capsys.readouterr().out
    table = tuned_configs()
    assert f'algorithms: {", ".join(sorted({t.algo for t in table}))}\n' in out
    assert f'envs:       {", ".join(sorted({t.env for t in table}))}\n' in out
    rows = [line.split() for line in out.splitlines() if line.endswith('.yaml')]
    assert len(rows) == len([t for t in table if not t.offline and t.demonstrations is None])  # one per online file
    imitation = out[out.index('\nimitation (ding train --algo ALGO --env ENV --dataset DEMOS'):out.index('\noffline (')]
    assert ['sqil', 'CartPole-v1', '475', '100,000', 'sqil_cartpole-v1.yaml', 'dqn_cartpole-v1.yaml', '--episodes',
            '20', '--eps', '0.0'] in [line.split() for line in imitation.splitlines()]
    offline = out[out.index('\noffline (ding train --algo ALGO --env ENV --dataset PATH'):]
    assert ['iql', 'Pendulum-v1', '-400', '6,000', 'iql_pendulum-v1.yaml', 'sac_pendulum-v1.yaml', '--episodes', '50',
            '--eps', '0.5'] in [line.split() for line in offline.splitlines()]
    assert ['dqn', 'CartPole-v1', '475', '100,000', 'dqn_cartpole-v1.yaml'] in rows
    assert ['sac', 'Pendulum-v1', '-250', '20,000', 'sac_pendulum-v1.yaml'] in rows
    assert ['rainbow', 'CartPole-v0', '195', '100,000', 'rainbow_cartpole-v0.yaml'] in rows
    widths = {line.index(' CartPole-') for line in out.splitlines() if ' CartPole-' in line and line.endswith('.yaml')}
    assert len(widths) == 1  # the algo column fits the longest name


@pytest.mark.parametrize('name', ['dqn_cartpole-v0.yaml', 'dqn_cartpole-v0'])
def test_train_file_may_be_a_name_from_the_listing(in_tmp, name):
    from ding.entry.train import resolve_config
    _, create, info = resolve_config(None, None, name)
    assert (info['algo'], info['env'], info['threshold']) == ('dqn', 'CartPole-v0', 195)
    assert info['source'].endswith(os.path.join('ding', 'config', 'tuned', 'dqn_cartpole-v0.yaml'))
    assert create.policy.type == 'dqn'


@pytest.mark.parametrize('args, message', [
    (['--algo', 'dqnn', '--env', 'CartPole-v1'],
     "unknown algorithm 'dqnn' (did you mean 'dqn'?); valid choices: a2c, "),
    (['--algo', 'dqn', '--env', 'Pendulum-v1'],
     "unknown env for dqn 'Pendulum-v1'; valid choices: BreakoutNoFrameskip-v4, CartPole-v0, CartPole-v1, "
     "MinAtar/Asterix-v1, MinAtar/Breakout-v1, MinAtar/Freeway-v1, MinAtar/Seaquest-v1, MinAtar/SpaceInvaders-v1, "
     "PongNoFrameskip-v4"),
    (DQN_V1 + ['--config', '{"policy": {"learn": {"learning_rte": 0.1}}}'], 'cfg.policy.learn.learning_rte'),
])
def test_user_mistakes_exit_2_naming_the_valid_choices(in_tmp, capsys, args, message):
    assert main(['train'] + args) == 2
    err = capsys.readouterr().err
    assert err.startswith('ding: error: ') and message in err
    assert os.listdir(in_tmp) == []  # nothing was started


def test_unknown_config_key_suggests_the_closest(in_tmp, capsys):
    assert main(['train'] + DQN_V1 + ['--config', '{"policy": {"learn": {"learning_rte": 0.1}}}']) == 2
    assert "did you mean 'learning_rate'" in capsys.readouterr().err


def test_train_writes_the_run_directory_then_eval_renders_a_gif(in_tmp, capsys):
    assert main(['train'] + DQN_V1 + ['--max-env-step', '160', '--checkpoint-freq', '80', '--config', SMALL,
                                      '--exp-name', 'run', '--no-progress']) == 0
    out = capsys.readouterr().out
    assert 'finished: env_step=160 ' in out
    run = in_tmp / 'run'
    for name in ('config.yaml', 'run.json', 'progress.csv', 'result.json', 'final_ctx.json', 'ckpt/run_state.pt',
                 'ckpt/final.pth.tar', 'ckpt/eval.pth.tar'):
        assert (run / name).is_file(), name
    assert any(n.startswith('events.out.tfevents') for n in os.listdir(run / 'log'))
    meta = json.loads((run / 'run.json').read_text())
    assert (meta['algo'], meta['env'], meta['seed'], meta['max_env_step']) == ('dqn', 'CartPole-v1', 0, 160)
    rows = [json.loads(line) for line in (run / 'result.json').read_text().splitlines()]
    assert rows[0]['env_step'] == 8 and rows[0]['eval_episodes'] == 2 and rows[-1]['env_step'] == 160
    assert (run / 'progress.csv').read_text().splitlines()[0].startswith(
        'env_step,train_iter,env_episode,eval_return_mean,eval_return_std,eval_episodes,time_s,env_steps_per_s')

    assert main(['eval', str(run), '--episodes', '2', '--render', str(run / 'videos' / 'out.gif')]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(':')[0] for line in lines[:2]] == ['Episode #0', 'Episode #1']
    returns = [float(line.split('reward: ')[1]) for line in lines[:2]]
    assert lines[2].startswith(f'Mean reward: {sum(returns) / 2:.2f} ')
    frames = int(sum(returns)) + 2  # CartPole pays 1 per step; one frame per step plus each first frame
    assert lines[3] == f'video: {run / "videos" / "out.gif"} ({frames} frames)'
    gif = Image.open(run / 'videos' / 'out.gif')
    durations = []
    for i in range(gif.n_frames):
        gif.seek(i)
        durations.append(gif.info['duration'])
    assert gif.size == (600, 400) and sum(durations) == frames * 40  # 25 fps; equal frames merge

    assert main(['resume', str(run)]) == 0
    assert 'already finished at env_step=160' in capsys.readouterr().out


def test_serial_form_runs_a_dizoo_config_once_per_seed(in_tmp, capsys):
    config = os.path.join(os.path.dirname(__file__), '..', '..', 'dizoo', 'classic_control', 'cartpole', 'config',
                          'cartpole_dqn_config.py')
    assert main(['-m', 'serial', '-c', config, '-s', '1', '-s', '2', '--max-env-step', '64']) == 0
    out = capsys.readouterr().out
    assert out.count('finished: env_step=64 ') == 2
    for seed in (1, 2):
        meta = json.loads((in_tmp / f'cartpole_dqn_seed{seed}' / 'run.json').read_text())
        assert meta['seed'] == seed and meta['mode'] == 'serial'


def test_a_random_warm_up_over_the_budget_is_named(in_tmp, capsys, caplog):
    warm_up = json.loads(SMALL)
    warm_up['policy']['random_collect_size'] = 64
    warm_up = json.dumps(warm_up)
    assert main(['train'] + DQN_V1 + ['--max-env-step', '16', '--config', warm_up, '--no-progress']) == 0
    assert 'random_collect_size=64 is over the budget of 16 env steps' in caplog.text
    assert 'finished: env_step=64 ' in capsys.readouterr().out


@pytest.mark.parametrize('omp', [None, '2'])
def test_train_runs_one_torch_thread_unless_omp_num_threads_chooses(in_tmp, monkeypatch, omp):
    """A conv learner on Atari wants both cores of a small machine (OMP_NUM_THREADS=2 keeps
    torch's threads as the environment started them); a run that says nothing gets one thread."""
    import torch
    from ding.utils.threads import torch_default_counts
    if omp is None:
        monkeypatch.delenv('OMP_NUM_THREADS', raising=False)
    else:
        monkeypatch.setenv('OMP_NUM_THREADS', omp)
    monkeypatch.delenv('MKL_NUM_THREADS', raising=False)
    torch_default = max(torch_default_counts())
    torch.set_num_threads(torch_default)  # as torch starts on this machine
    seen = []
    monkeypatch.setattr('ding.entry.pipeline.RunDir', _recording(seen, torch))
    assert main(['train'] + DQN_V1 + ['--max-env-step', '16', '--config', SMALL, '--no-progress']) == 0
    assert seen == [1 if omp is None else torch_default]


def _recording(seen, torch):
    """RunDir, noting torch's thread count when run_training opens it (the pipeline is set up by then)."""
    from ding.utils.run_dir import RunDir

    def make(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return RunDir(*args, **kwargs)

    return make
