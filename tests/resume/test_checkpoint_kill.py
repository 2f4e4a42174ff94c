"""SIGKILL while a run-state checkpoint is being written: the previous checkpoint still loads,
and resuming clears the half-written temporary files."""
import glob
import os
import signal
import subprocess
import sys
import textwrap
import time

import torch

from ding.framework.context import OnlineRLContext
from ding.framework.middleware.run_state import RunStateSaver, load_run_state

# A child that rewrites a ~64 MB checkpoint forever; version k holds a tensor filled with k.
WRITER = textwrap.dedent('''
    import sys, torch
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware.run_state import RunStateSaver

    class Learner:
        def __init__(self):
            self.version = 0
        def state_dict(self):
            return {'w': torch.full((16_000_000,), float(self.version))}

    learner = Learner()
    saver = RunStateSaver(sys.argv[1], learner, every_env_step=1)
    ctx = OnlineRLContext()
    while True:
        learner.version += 1
        ctx.env_step = learner.version
        saver.save(ctx)
''')


def test_kill_during_checkpoint_write_keeps_previous_checkpoint(tmp_path):
    child = subprocess.Popen([sys.executable, '-c', WRITER, str(tmp_path)], stderr=subprocess.PIPE)
    ckpt_dir = tmp_path / 'ckpt'
    deadline = time.time() + 120
    try:
        # Wait for a complete checkpoint, then for the next write to be under way.
        while not (ckpt_dir / 'run_state.pt').exists() or not glob.glob(str(ckpt_dir / '.run_state.pt.*.tmp')):
            assert child.poll() is None, child.stderr.read().decode()
            assert time.time() < deadline, 'the writer never started a second checkpoint'
            time.sleep(0.002)
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    leftovers = glob.glob(str(ckpt_dir / '.run_state.pt.*.tmp'))
    assert leftovers, 'the kill did not land during a write'

    state = load_run_state(str(ckpt_dir / 'run_state.pt'))
    version = state['ctx']['env_step']
    assert version >= 1
    assert torch.equal(state['policy']['w'], torch.full((16_000_000, ), float(version)))

    class Learner:
        def load_state_dict(self, sd):
            self.loaded = sd

    learner = Learner()
    saver = RunStateSaver(str(tmp_path), learner, every_env_step=1, resume=True)
    ctx = OnlineRLContext()
    saver.restore(ctx)
    assert ctx.env_step == version and learner.loaded['w'][0].item() == version
    assert not glob.glob(str(ckpt_dir / '.run_state.pt.*.tmp'))
    assert sorted(os.listdir(ckpt_dir)) == ['run_state.prev.pt', 'run_state.pt']  # the one before is kept


def test_a_resume_leaves_the_evaluators_checkpoint_write_alone(tmp_path):
    """In a distributed resume the evaluator node may be writing eval.pth.tar while the learner
    restores: clearing its temporary file made that write fail (os.replace found no file) and
    ended the run. The learner clears only its own files' temporaries."""
    from ding.utils.fileio import atomic_torch_save
    from ding.utils.run_dir import remove_stale_tmp
    ckpt = tmp_path / 'ckpt'
    ckpt.mkdir()
    left = [ckpt / '.run_state.pt.ab12cd34.tmp', ckpt / '.iteration_500.pth.tar.ef56ab78.tmp']
    writing = ckpt / '.eval.pth.tar.12345678.tmp'
    for p in left + [writing]:
        p.write_bytes(b'half')
    assert remove_stale_tmp(str(ckpt)) == 2
    assert sorted(os.listdir(ckpt)) == [writing.name]
    atomic_torch_save({'w': 1}, str(ckpt / 'eval.pth.tar'))  # the evaluator's own write still lands
    assert torch.load(ckpt / 'eval.pth.tar')['w'] == 1
