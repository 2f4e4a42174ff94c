"""Every user mistake ends in one line `ding: error: <cause>`, exit status 2, no traceback and
no run directory left behind: bad numbers, a misspelt model argument, unreadable checkpoints,
a missing optional package."""
import json
import os
import random
import shutil
import sys

import pytest
import torch

from ding.entry.cli import main

DQN_V1 = ['--algo', 'dqn', '--env', 'CartPole-v1']
SMALL = json.dumps({'env': {'n_evaluator_episode': 2},
                    'policy': {'collect': {'n_sample': 8}, 'learn': {'update_per_collect': 4},
                               'other': {'replay_buffer': {'replay_buffer_size': 1000}}}})


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def error_of(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith('ding: error: ') and 'Traceback' not in err, err
    return err


@pytest.mark.parametrize('args, message', [
    (['--max-env-step', '-5'], 'argument --max-env-step: must be a positive integer, got -5'),
    (['--max-env-step', '0'], 'argument --max-env-step: must be a positive integer, got 0'),
    (['--checkpoint-freq', '0'], 'argument --checkpoint-freq: must be a positive integer, got 0'),
    (['--seed', '-1'], 'argument --seed: must be an integer from 0 to 4294967295, got -1'),
    (['--seed', 'x'], "argument --seed: must be an integer, got 'x'"),
    (['--config', '{"policy":{"model":{"duelling":true}}}'], "cfg.policy.model.duelling (did you mean 'dueling'?)"),
    (['--config', '[1]'], '--config must be a JSON object, got list'),
])
def test_bad_train_arguments(in_tmp, capsys, args, message):
    assert message in error_of(capsys, ['train'] + DQN_V1 + args)
    assert os.listdir(in_tmp) == []


def test_bad_serial_form_numbers(in_tmp, capsys):
    err = error_of(capsys, ['-m', 'serial', '-c', 'x.py', '--max-env-step', '0'])
    assert 'must be a positive integer, got 0' in err


@pytest.mark.parametrize('module, extra, argv', [
    ('Box2D', 'box2d', ['train', '--algo', 'ppo', '--env', 'LunarLander-v3']),
    ('matplotlib', 'plot', ['plot', 'some_run', '-o', 'curve.png']),
])
def test_missing_extra_names_it_and_leaves_no_run_dir(in_tmp, capsys, monkeypatch, module, extra, argv):
    for name in [m for m in sys.modules if m == module or m.startswith(module + '.') or 'box2d' in m]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    err = error_of(capsys, argv)
    assert f'{module} is not installed; install it with: pip install "ding[{extra}]"' in err
    assert os.listdir(in_tmp) == []


@pytest.fixture(scope='module')
def trained_run(tmp_path_factory):
    root = tmp_path_factory.mktemp('cli_errors')
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(['train'] + DQN_V1 + ['--max-env-step', '64', '--checkpoint-freq', '64', '--config', SMALL,
                                          '--exp-name', 'run', '--no-progress']) == 0
    finally:
        os.chdir(cwd)
    return root / 'run'


def corrupt(path, kind, good):
    if kind == 'empty':
        path.write_bytes(b'')
    elif kind == 'truncated':
        path.write_bytes(good.read_bytes()[:1000])
    elif kind == 'random':
        path.write_bytes(random.Random(0).randbytes(3000))  # fixed: some random files unpickle further
    else:  # a readable file that is not a policy checkpoint
        torch.save({'weights': 1}, path)


@pytest.mark.parametrize('kind, message', [
    ('empty', 'is not a readable checkpoint (an empty file)'),
    ('truncated', 'is not a readable checkpoint (RuntimeError: PytorchStreamReader failed reading zip archive'),
    ('random', 'is not a readable checkpoint (UnpicklingError'),
    ('foreign', 'is not a policy checkpoint'),
])
def test_eval_of_a_bad_checkpoint(trained_run, tmp_path, capsys, kind, message):
    run = tmp_path / 'run'
    shutil.copytree(trained_run, run)
    corrupt(run / 'ckpt' / 'eval.pth.tar', kind, trained_run / 'ckpt' / 'final.pth.tar')
    err = error_of(capsys, ['eval', str(run), '--episodes', '1'])
    assert f'{run / "ckpt" / "eval.pth.tar"} {message}' in err


@pytest.mark.parametrize('kind', ['empty', 'truncated', 'random'])
def test_resume_of_a_bad_checkpoint(trained_run, tmp_path, capsys, kind):
    run = tmp_path / 'run'
    shutil.copytree(trained_run, run)
    for name in os.listdir(run / 'ckpt'):
        if name.startswith('run_state'):
            corrupt(run / 'ckpt' / name, kind, trained_run / 'ckpt' / 'final.pth.tar')
    err = error_of(capsys, ['resume', str(run)])
    assert 'cannot resume: no readable run-state checkpoint' in err


def test_eval_checks_the_video_type_before_playing(trained_run, capsys):
    err = error_of(capsys, ['eval', str(trained_run), '--render', 'out.avi'])
    assert "--render must end in .gif or .mp4, got 'out.avi'" in err and 'Episode' not in capsys.readouterr().out


def test_eval_render_without_pygame_names_the_extra(trained_run, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, 'pygame', None)
    err = error_of(capsys, ['eval', str(trained_run), '--render', str(trained_run / 'v.gif')])
    assert 'pygame is not installed; install it with: pip install "ding[video]"' in err
