"""A tiny DQN CartPole-v1 run directory, trained for 16 env steps (two checkpoints: eval, final),
shared by the export CLI and MP4 rendering tests."""
import json
import os

import pytest

from ding.entry.cli import main

TINY = json.dumps({'env': {'n_evaluator_episode': 1, 'evaluator_env_num': 1, 'collector_env_num': 1},
                   'policy': {'collect': {'n_sample': 8}, 'learn': {'update_per_collect': 1},
                              'other': {'replay_buffer': {'replay_buffer_size': 100}}}})


@pytest.fixture(scope='package')
def tiny_run(tmp_path_factory):
    root = tmp_path_factory.mktemp('export_run')
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--max-env-step', '16', '--checkpoint-freq',
                     '16', '--config', TINY, '--exp-name', 'run', '--no-progress']) == 0
    finally:
        os.chdir(cwd)
    run = root / 'run'
    assert (run / 'ckpt' / 'eval.pth.tar').is_file() and (run / 'ckpt' / 'final.pth.tar').is_file()
    return run
