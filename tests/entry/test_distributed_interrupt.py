"""A distributed run stopped on the driver: SIGTERM is reported as SIGTERM with exit 143 (not
as Ctrl-C), and the last line names the env step a resume continues from and the command. The
Ray launch is replaced by a stand-in that is interrupted (the real one needs a cluster)."""
import json
import os
import shutil
import signal

import pytest

from ding.entry.cli import main
from ding.framework.distributed import launcher

SMALL = json.dumps({'env': {'n_evaluator_episode': 2},
                    'policy': {'random_collect_size': 0, 'collect': {'n_sample': 32},
                               'learn': {'update_per_collect': 2}, 'eval': {'evaluator': {'eval_freq': 100}}}})
TRAIN = ['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--config', SMALL, '--no-progress']


def test_sigterm_on_the_driver_keeps_its_signal():
    with pytest.raises(KeyboardInterrupt) as stop:
        launcher.interrupt_on_signal(signal.SIGTERM, None)
    assert stop.value.signum == signal.SIGTERM
    assert launcher.received_signal(KeyboardInterrupt()) == signal.SIGTERM  # Ray re-raised it without signum
    launcher._received.clear()
    assert launcher.received_signal(KeyboardInterrupt()) == signal.SIGINT


def interrupted_launch(signum, checkpoint=None):
    """A launch that is interrupted by `signum` after the run's nodes wrote `checkpoint` (a
    run_state.pt to copy into the run directory; None: none written yet)."""
    def launch(main_name, **kwargs):
        launcher._received.clear()  # as the real launch does when it starts
        if checkpoint is not None:
            ckpt = os.path.join(kwargs['kwargs']['main_cfg']['exp_name'], 'ckpt')
            os.makedirs(ckpt, exist_ok=True)
            shutil.copy(checkpoint, os.path.join(ckpt, 'run_state.pt'))
        if signum == signal.SIGTERM:
            try:
                launcher.interrupt_on_signal(signum, None)  # the driver's SIGTERM handler, inside ray.wait
            except KeyboardInterrupt:
                pass
        raise KeyboardInterrupt  # what comes out of ray.wait either way: a new, plain one

    return launch


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def last_line(capsys):
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_sigterm_before_any_checkpoint_exits_143_as_sigterm(in_tmp, capsys, monkeypatch):
    monkeypatch.setattr(launcher, 'launch', interrupted_launch(signal.SIGTERM))
    assert main(TRAIN + ['--max-env-step', '1000', '--collectors', '2', '--exp-name', 'run']) == 143
    assert last_line(capsys) == ("interrupted (SIGTERM) before the run's first checkpoint: nothing to resume, "
                                 "run removed; start it again with ding train")
    assert not os.path.exists('run')  # no half run for `ding resume` to refuse


def test_ctrl_c_names_the_checkpoint_env_step_and_the_resume_command(in_tmp, capsys, monkeypatch):
    # a one-process run of 192 env steps leaves a real run-state checkpoint to stand for the nodes'
    assert main(TRAIN + ['--max-env-step', '192', '--checkpoint-freq', '64', '--exp-name', 'donor']) == 0
    capsys.readouterr()
    monkeypatch.setattr(launcher, 'launch', interrupted_launch(signal.SIGINT, 'donor/ckpt/run_state.pt'))
    assert main(TRAIN + ['--max-env-step', '1000', '--collectors', '2', '--exp-name', 'run']) == 130
    assert last_line(capsys) == 'interrupted (SIGINT); its last checkpoint is at env_step 192; resume with: ' \
        'ding resume run'
