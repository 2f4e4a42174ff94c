"""`ding train --keep-checkpoints N` keeps the newest N iteration checkpoints, and `ding resume`
goes on keeping N (the run records it)."""
import json
import os

import torch

from ding.entry.cli import main

SMALL = json.dumps({'env': {'n_evaluator_episode': 2},
                    'policy': {'random_collect_size': 0, 'collect': {'n_sample': 8},
                               'learn': {'update_per_collect': 2, 'learner': {'hook': {'save_ckpt_after_iter': 10}}}}})


def iteration_files(run_dir):
    names = [n for n in os.listdir(os.path.join(run_dir, 'ckpt')) if n.startswith('iteration_')]
    return sorted(int(n[len('iteration_'):-len('.pth.tar')]) for n in names)


def test_keep_checkpoints_bounds_the_iteration_files_and_resume_keeps_the_bound(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(['train', '--algo', 'dqn', '--env', 'CartPole-v0', '--config', SMALL, '--no-progress',
                 '--exp-name', 'run', '--max-env-step', '400', '--checkpoint-freq', '200',
                 '--keep-checkpoints', '2']) == 0
    first = iteration_files('run')
    # 400 env steps: about 90 updates with a file every 10, of which the newest two are left
    assert len(first) == 2 and first[1] - first[0] == 10 and first[1] >= 70, first
    with open('run/run.json') as f:
        meta = json.load(f)
    assert meta['keep_checkpoints'] == 2
    # as if the run had been stopped at env step 400 of 800: a second sitting goes on from there
    meta['max_env_step'] = 800
    with open('run/run.json', 'w') as f:
        json.dump(meta, f)
    state = torch.load('run/ckpt/run_state.pt', weights_only=False)
    torch.save(dict(state, finished=False), 'run/ckpt/run_state.pt')
    assert main(['resume', 'run']) == 0
    later = iteration_files('run')
    assert len(later) == 2 and later[0] > first[-1], later
    assert {'eval.pth.tar', 'final.pth.tar'} <= set(os.listdir('run/ckpt'))
