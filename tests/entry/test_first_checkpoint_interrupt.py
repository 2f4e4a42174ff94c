"""A run stopped while its first run-state checkpoint is being written (Ctrl-C, then Ctrl-C again
during that save) has nothing to resume: `ding train` removes its directory and says so in one
line with the signal's exit status, instead of leaving a run that `ding resume` refuses. Once a
checkpoint exists, an interrupted later save keeps the run (the previous checkpoint resumes)."""
import json
import os
import signal

import pytest

from ding.entry.cli import main
from ding.framework.middleware import run_state_file
from ding.utils.fileio import atomic_write_with

SMALL = json.dumps({'env': {'n_evaluator_episode': 2},
                    'policy': {'random_collect_size': 0, 'collect': {'n_sample': 8},
                               'learn': {'update_per_collect': 2}}})
TRAIN = ['train', '--algo', 'dqn', '--env', 'CartPole-v0', '--config', SMALL, '--no-progress', '--exp-name', 'run']


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def signals_during_save(monkeypatch, signum, on_save):
    """The `on_save`-th run-state write (1 = the first) gets `signum` twice while half its bytes are
    out: the first asks to stop at the step's end, the second stops at once, inside the write."""
    real_write = run_state_file.atomic_torch_save
    saves = [0]

    def write(state, path):
        saves[0] += 1
        if saves[0] != on_save:
            return real_write(state, path)

        def half_then_signals(f):
            f.write(b'PK\x03\x04 half a checkpoint')
            os.kill(os.getpid(), signum)
            os.kill(os.getpid(), signum)
            raise AssertionError('the second signal did not stop the write')

        atomic_write_with(path, half_then_signals)

    monkeypatch.setattr(run_state_file, 'atomic_torch_save', write)
    return saves


@pytest.mark.parametrize('signum, code', [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_stopped_during_the_first_checkpoint_leaves_no_run(in_tmp, capsys, monkeypatch, signum, code):
    saves = signals_during_save(monkeypatch, signum, on_save=1)
    assert main(TRAIN + ['--max-env-step', '400', '--checkpoint-freq', '64']) == code
    assert saves[0] == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"interrupted ({signal.Signals(signum).name}) before the run's first checkpoint: nothing to "
                       f"resume, run removed; start it again with ding train")
    assert 'Traceback' not in '\n'.join(err)
    assert os.listdir(in_tmp) == []
    assert main(['resume', 'run']) == 2  # nothing there: one line, not a half run
    assert capsys.readouterr().err.strip() == 'ding: error: run does not exist'


def test_stopped_during_a_later_checkpoint_keeps_the_run_and_it_resumes(in_tmp, capsys, monkeypatch):
    real_write = run_state_file.atomic_torch_save
    signals_during_save(monkeypatch, signal.SIGINT, on_save=2)
    assert main(TRAIN + ['--max-env-step', '400', '--checkpoint-freq', '64']) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith('interrupted (SIGINT) again before the step ended') and last.endswith('ding resume run')
    assert sorted(os.listdir(in_tmp / 'run' / 'ckpt')) == ['eval.pth.tar', 'iteration_0.pth.tar', 'run_state.prev.pt',
                                                          'run_state.pt']
    monkeypatch.setattr(run_state_file, 'atomic_torch_save', real_write)
    assert main(['resume', 'run', '--no-progress']) == 0
    assert 'finished: env_step=400' in capsys.readouterr().out


def test_killed_during_the_first_checkpoint_resume_is_one_line(in_tmp, capsys, monkeypatch):
    """SIGKILL cannot be caught: what it leaves (the run's files, half a temporary checkpoint, no
    run_state.pt) gets one line from `ding resume` saying to start again, exit 2."""
    def killed(state, path):  # the process dies here: the temporary file stays, nothing is renamed
        with open(os.path.join(os.path.dirname(path), '.run_state.pt.k1ll3d.tmp'), 'wb') as f:
            f.write(b'PK\x03\x04 half a checkpoint')
        raise SystemExit(137)

    monkeypatch.setattr(run_state_file, 'atomic_torch_save', killed)
    with pytest.raises(SystemExit):
        main(TRAIN + ['--max-env-step', '400', '--checkpoint-freq', '64'])
    assert '.run_state.pt.k1ll3d.tmp' in os.listdir('run/ckpt') and not os.path.exists('run/ckpt/run_state.pt')
    capsys.readouterr()
    assert main(['resume', 'run']) == 2
    assert capsys.readouterr().err == ('ding: error: run has no run-state checkpoint yet (run/ckpt/run_state.pt); '
                                       'start it again with `ding train` instead\n')
