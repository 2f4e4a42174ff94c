"""A real distributed `ding train` on a local Ray cluster, as a user runs it: the driver shows
the one-process progress line while the run goes on; Ctrl-C names the env step of the last
checkpoint and the resume command (exit 130); SIGTERM on the resumed run does the same with exit
143; no Ray process outlives either."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
import torch

from tests.distributed.conftest import assert_no_ray_left

DING = os.path.join(os.path.dirname(sys.executable), 'ding')
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# never reaches its stop value: the run goes on until a signal stops it
ENDLESS = json.dumps({'env': {'stop_value': 1e9, 'n_evaluator_episode': 2}})
PROGRESS = re.compile(r'^env_step [\d,]+/1,000,000 \| [\d,]+ steps/s \| train_iter [\d,]+ \| eval (-|[\d.]+) \| ETA ')


class Running:
    """A `ding` command whose stderr lines are collected as they come."""

    def __init__(self, cwd, *argv):
        env = {**os.environ, 'PYTHONPATH': ROOT, 'OMP_NUM_THREADS': '1'}
        self.proc = subprocess.Popen([DING, *argv], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        # One reader per pipe, and nothing else reads them: `communicate()` would read stderr too,
        # taking the last lines from the reader and closing the file under it.
        self.out, self.err = [], []
        self._readers = [threading.Thread(target=lambda pipe=pipe, lines=lines: lines.extend(iter(pipe.readline, '')),
                                          daemon=True)
                         for pipe, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for reader in self._readers:
            reader.start()

    def wait_until(self, condition, what, timeout=240):
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.proc.poll() is None, f'ended before {what}: {"".join(self.err)[-3000:]}'
            assert time.monotonic() < deadline, f'no {what} in {timeout}s: {"".join(self.err)[-3000:]}'
            time.sleep(0.2)

    def progress_lines(self):
        return [line for line in self.err if PROGRESS.match(line)]

    def stop(self, signum):
        self.proc.send_signal(signum)
        self.proc.wait(timeout=120)
        for reader in self._readers:
            reader.join(timeout=10)
            assert not reader.is_alive(), 'a pipe stayed open after the driver ended'
        return self.proc.returncode, ''.join(self.out), [line.rstrip('\n') for line in self.err]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def checkpoint_step(run):
    state = torch.load(os.path.join(run, 'ckpt', 'run_state.pt'), weights_only=False, map_location='cpu')
    return int(state['ctx']['env_step'])


@pytest.mark.slow
def test_progress_line_then_sigint_and_sigterm_name_the_step_and_the_resume(tmp_path):
    since = time.time()
    run = str(tmp_path / 'run')
    train = Running(tmp_path, 'train', '--algo', 'dqn', '--env', 'CartPole-v0', '--collectors', '2',
                    '--max-env-step', '1000000', '--checkpoint-freq', '500', '--config', ENDLESS, '--exp-name', 'run')
    try:
        train.wait_until(lambda: len(train.progress_lines()) >= 3 and os.path.isfile(f'{run}/ckpt/run_state.pt'),
                         'progress lines and a checkpoint')
        code, out, err = train.stop(signal.SIGINT)
    finally:
        train.kill()
    assert code == 130, err[-20:]
    assert 'starting 1 learner(s), 1 evaluator and 2 collector(s) on Ray' in out
    assert not any('Traceback' in line for line in err), err
    step = checkpoint_step(run)
    assert err[-1] == f'interrupted (SIGINT); its last checkpoint is at env_step {step}; resume with: ding resume run'
    assert_no_ray_left(since)

    since = time.time()
    resume = Running(tmp_path, 'resume', 'run')
    try:
        resume.wait_until(lambda: any(int(line.split()[1].split('/')[0].replace(',', '')) > step
                                      for line in resume.progress_lines()) and checkpoint_step(run) > step,
                          'progress after the checkpoint and a new checkpoint')
        code, out, err = resume.stop(signal.SIGTERM)
    finally:
        resume.kill()
    assert code == 143, err[-20:]
    assert f'resuming {run} from env_step={step}' in out
    later = checkpoint_step(run)
    assert err[-1] == f'interrupted (SIGTERM); its last checkpoint is at env_step {later}; resume with: ding resume run'
    assert_no_ray_left(since)
