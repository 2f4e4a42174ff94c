"""`learn.lr_scheduler` and PPO's `learn.entropy_scheduler` survive `ding resume`: a run stopped
by SIGINT mid-schedule and resumed ends with the same schedule position, learning rate and
weights as the same run left alone."""
import json
import signal

import torch

from ding.entry.cli import main
from ding.policy.onpolicy_base import OnPolicyBase

SCHEDULED = json.dumps({'env': {'n_evaluator_episode': 2, 'collector_env_num': 2},
                        'policy': {'collect': {'n_sample': 64}, 'eval': {'evaluator': {'eval_freq': 1000}},
                                   'learn': {'epoch_per_collect': 2, 'batch_size': 32,
                                             'lr_scheduler': {'type': 'cosine', 'epoch_num': 6, 'warmup_epoch': 1,
                                                              'min_lr_lambda': 0.1},
                                             'entropy_weight': 0.01,
                                             'entropy_scheduler': {'epoch_num': 4, 'min_lr_lambda': 0.0}}}})
UPDATES = 8  # 8 collects of 64 steps: past both schedules' ends
STOP_AFTER = 3  # updates before the SIGINT


def train(exp_name):
    return main(['train', '--algo', 'ppo', '--env', 'CartPole-v1', '--seed', '5', '--max-env-step',
                 str(64 * UPDATES), '--checkpoint-freq', '100000', '--config', SCHEDULED, '--exp-name', exp_name,
                 '--no-progress'])


def final_learn_state(run_dir):
    state = torch.load(run_dir / 'ckpt' / 'run_state.pt', weights_only=False)
    assert state['finished']
    return state['policy']


def test_schedules_resume_exactly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert train('whole') == 0

    after_update = OnPolicyBase._after_update

    def interrupted(self):
        after_update(self)
        if self._entropy_updates == STOP_AFTER:  # Ctrl-C during the update: the step finishes, then a checkpoint
            signal.raise_signal(signal.SIGINT)

    with monkeypatch.context() as patch:
        patch.setattr(OnPolicyBase, '_after_update', interrupted)
        assert train('cut') == 130
    stopped = torch.load(tmp_path / 'cut' / 'ckpt' / 'run_state.pt', weights_only=False)['policy']
    assert stopped['lr_scheduler']['updates'] == stopped['entropy_updates'] == STOP_AFTER
    assert main(['resume', 'cut', '--no-progress']) == 0

    whole, resumed = final_learn_state(tmp_path / 'whole'), final_learn_state(tmp_path / 'cut')
    assert whole['lr_scheduler'] == resumed['lr_scheduler'] and whole['lr_scheduler']['updates'] == UPDATES
    assert whole['entropy_updates'] == resumed['entropy_updates'] == UPDATES
    assert whole['optimizer']['param_groups'][0]['lr'] == resumed['optimizer']['param_groups'][0]['lr']
    for key, value in whole['model'].items():
        assert torch.equal(value, resumed['model'][key]), key
