"""Which files of ding/ a DQN step runs through (issue 36: an algorithm reads top to bottom).

The files are found by tracing the Python calls of one learn, collect and eval step of a
DQNPolicy, so a new layer of indirection (a mixin, a hook in another module) shows up here and
fails the test until the list below says why it is worth reading. Today: DQN's own logic in three
files, the policy base in three, and three building blocks named for what they do.
"""
import sys

import numpy as np
import torch

from ding.data.batch import Batch
from ding.model import DQN
from ding.policy import DQNPolicy

DQN_READS = {
    # DQN itself: the update, acting and config; the network and its Q heads; the TD loss
    'ding/policy/dqn.py', 'ding/model/dqn.py', 'ding/rl_utils/td.py',
    # the policy base: modes, devices, checkpoints, and the acting copies of the model
    'ding/policy/policy.py', 'ding/policy/policy_modes.py', 'ding/policy/acting_weights.py',
    # building blocks: the MLP encoder, action masking, epsilon-greedy
    'ding/model/common.py', 'ding/model/action_mask.py', 'ding/rl_utils/exploration.py',
    # the batch container every learner reads its columns from
    'ding/data/batch.py',
}


def _files_run(step) -> set:
    root = sys.modules['ding'].__file__.rsplit('/ding/', 1)[0] + '/'
    seen = set()

    def profile(frame, event, arg):
        if event == 'call' and frame.f_code.co_filename.startswith(root + 'ding/'):
            seen.add(frame.f_code.co_filename[len(root):])

    step()  # once untraced: lazy acting copies and optimizer state are made here
    sys.setprofile(profile)
    try:
        step()
    finally:
        sys.setprofile(None)
    return seen


def test_a_dqn_step_runs_through_the_listed_files_only():
    policy = DQNPolicy(dict(model=dict(obs_shape=4, action_shape=2), learn=dict(batch_size=8)),
                       model=DQN(obs_shape=4, action_shape=2))
    batch = Batch(obs=torch.randn(8, 4), action=torch.randint(0, 2, (8, )), reward=torch.randn(8),
                  next_obs=torch.randn(8, 4), done=torch.zeros(8))
    obs = np.zeros((2, 4), np.float32)
    files = set()
    files |= _files_run(lambda: policy.learn_mode.forward(batch))
    files |= _files_run(lambda: policy.collect_mode.forward_batch(obs, eps=0.5))
    files |= _files_run(lambda: policy.eval_mode.forward_batch(obs))
    assert files == DQN_READS, (f'new: {sorted(files - DQN_READS)}; no longer run: {sorted(DQN_READS - files)}')
