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
