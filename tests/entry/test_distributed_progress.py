"""A distributed `ding train` shows the progress line of a one-process run on the driver: the
evaluator node writes the rows, the driver prints a line for each as it comes (not at the end).
The Ray launch is replaced by a stand-in that writes the rows as the evaluator would."""
import io
import json
import sys
import time

import pytest

from ding.entry.cli import main
from ding.framework.distributed import launcher
from ding.framework.middleware.progress import format_status
from ding.utils.fileio import atomic_write_text

SMALL = json.dumps({'env': {'n_evaluator_episode': 2}, 'policy': {'random_collect_size': 0}})
TRAIN = ['train', '--algo', 'dqn', '--env', 'CartPole-v1', '--config', SMALL, '--max-env-step', '1000',
         '--collectors', '2', '--exp-name', 'run']
ROWS = [
    {'env_step': 0, 'train_iter': 0, 'eval_return_mean': 9.4, 'time_s': 0.5, 'env_steps_per_s': 0.0},
    {'env_step': 512, 'train_iter': 128, 'eval_return_mean': 120.0, 'time_s': 2.5, 'env_steps_per_s': 250.0},
    {'env_step': 1024, 'train_iter': 256, 'eval_return_mean': None, 'time_s': 4.5, 'env_steps_per_s': 260.0},
]


def wait_for(stream, text, timeout=10.0):
    deadline = time.monotonic() + timeout
    while text not in stream.getvalue():
        assert time.monotonic() < deadline, f'{text!r} never shown; shown: {stream.getvalue()!r}'
        time.sleep(0.05)


def evaluator_stand_in(stream, rows=ROWS):
    """A launch whose evaluator writes `rows` one by one, each only once the driver has shown the
    one before (so the lines are shown while the run goes on)."""
    def launch(main_name, **kwargs):
        exp = kwargs['kwargs']['main_cfg']['exp_name']
        for i, row in enumerate(rows):
            atomic_write_text(f'{exp}/result.json', ''.join(json.dumps(r) + '\n' for r in rows[:i + 1]))
            if i < len(rows) - 1:
                wait_for(stream, f'env_step {row["env_step"]:,}/')
        last = dict(rows[-1], env_episode=30, last_eval_value=120.0)
        return {0: last, 1: last, 2: None, 3: None}

    return launch


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_driver_shows_each_evaluation_as_a_one_process_run_does(in_tmp, monkeypatch, capsys):
    shown = io.StringIO()
    monkeypatch.setattr(sys, 'stderr', shown)
    monkeypatch.setattr(launcher, 'launch', evaluator_stand_in(shown))
    assert main(TRAIN) == 0
    lines = [line for line in shown.getvalue().splitlines() if line.startswith('env_step ')]
    assert lines == [
        format_status(0, 0.0, 0, 9.4, 1000, 0.0),
        format_status(512, 250.0, 128, 120.0, 1000, 256.0),  # ETA at (512 - 0) / (2.5 - 0.5) steps/s
        format_status(1024, 260.0, 256, 120.0, 1000, 256.0),
    ]
    assert lines[0] == 'env_step 0/1,000 | 0 steps/s | train_iter 0 | eval 9.40 | ETA -'
    assert lines[1] == 'env_step 512/1,000 | 250 steps/s | train_iter 128 | eval 120.00 | ETA 0:00:02'
    out = capsys.readouterr().out
    assert 'starting 1 learner(s), 1 evaluator and 2 collector(s) on Ray' in out
    assert 'finished: env_step=1024 train_iter=256 episodes=30 last eval return=120.00' in out


def test_no_progress_shows_no_line(in_tmp, monkeypatch):
    shown = io.StringIO()
    monkeypatch.setattr(sys, 'stderr', shown)
    rows = ROWS[-1:]  # one row: the stand-in waits for nothing
    monkeypatch.setattr(launcher, 'launch', evaluator_stand_in(shown, rows))
    assert main(TRAIN + ['--no-progress']) == 0
    assert 'env_step ' not in shown.getvalue()


def test_a_resumed_run_shows_only_the_rows_after_its_checkpoint(tmp_path):
    from ding.entry.distributed_progress import ProgressTail
    atomic_write_text(str(tmp_path / 'result.json'), ''.join(json.dumps(r) + '\n' for r in ROWS[:2]))
    shown = io.StringIO()
    with ProgressTail(str(tmp_path), 2000, after_env_step=512, stream=shown, poll_s=0.05) as tail:
        assert tail.poll() == 0
        atomic_write_text(str(tmp_path / 'result.json'), ''.join(json.dumps(r) + '\n' for r in ROWS))
    # the last evaluation before the checkpoint is carried on; the first row after a resume has no ETA
    assert shown.getvalue() == 'env_step 1,024/2,000 | 260 steps/s | train_iter 256 | eval 120.00 | ETA -\n'
