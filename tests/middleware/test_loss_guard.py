"""A NaN or infinite loss or gradient norm returned by a policy's learn stops every learner
middleware with an error naming the term and the train_iter (policy.learn.nonfinite='raise',
the default), or is logged while training goes on (nonfinite='warn')."""
import logging

import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.data.batch import Batch
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import OffPolicyLearner, multistep_trainer, trainer
from ding.policy import DQNPolicy
from ding.utils.dicts import deep_merge
from ding.utils.nonfinite import NonFiniteError

from .conftest import drive, make_cfg


class LossAt:
    """learn output: total_loss 1.0, and `value` in `key` at update number `bad` (0-based)."""

    def __init__(self, key, value, bad, nonfinite='raise', per_call=1):
        self.cfg = EasyDict(learn=dict(nonfinite=nonfinite))
        self.key, self.value, self.bad, self.per_call, self.updates = key, value, bad, per_call, 0

    def forward(self, data):
        outs = []
        for _ in range(self.per_call):
            out = {'total_loss': 1.0, 'cur_lr': 0.1}
            if self.updates == self.bad:
                out[self.key] = self.value
            self.updates += 1
            outs.append(out)
        return outs if self.per_call > 1 else outs[0]


def run_trainer(policy, steps):
    mw, ctx = trainer(make_cfg(), policy, log_freq=0), OnlineRLContext()
    for _ in range(steps):
        ctx.train_data = Batch(obs=np.zeros((2, 1), dtype=np.float32))
        drive(mw, ctx)
    return ctx


@pytest.mark.parametrize('key,value', [('total_loss', float('nan')), ('critic_loss', np.float32('inf')),
                                       ('grad_norm', torch.tensor(float('nan'))), ('total_loss', np.array(np.nan))])
def test_trainer_stops_naming_the_term_and_train_iter(key, value):
    with pytest.raises(NonFiniteError, match=rf'non-finite {key}=(nan|inf) at train_iter 3'):
        run_trainer(LossAt(key, value, bad=3), steps=6)


def test_multistep_trainer_names_the_update_inside_the_call():
    policy = LossAt('policy_loss', float('-inf'), bad=6, per_call=4)
    mw, ctx = multistep_trainer(policy, log_freq=0), OnlineRLContext()
    ctx.train_data = Batch(obs=np.zeros((2, 1), dtype=np.float32))
    drive(mw, ctx)
    with pytest.raises(NonFiniteError, match=r'non-finite policy_loss=-inf at train_iter 6'):
        drive(mw, ctx)


def test_finite_outputs_and_other_keys_pass():
    ctx = run_trainer(LossAt('q_value', float('nan'), bad=1), steps=3)  # not a loss: not checked
    assert ctx.train_iter == 3


def test_warn_logs_and_training_goes_on(caplog):
    policy = LossAt('total_loss', float('nan'), bad=2, nonfinite='warn')
    with caplog.at_level(logging.WARNING, logger='ding.learner'):
        ctx = run_trainer(policy, steps=5)
    assert ctx.train_iter == 5
    assert [r.getMessage().split(' (')[0] for r in caplog.records] == ['LossAt: non-finite total_loss=nan at train_iter 2']


def test_an_unknown_mode_is_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"policy.learn.nonfinite must be one of \['raise', 'warn'\], got 'skip'"):
        trainer(make_cfg(), LossAt('total_loss', 1.0, bad=0, nonfinite='skip'))


def test_a_real_dqn_fed_a_nan_reward_stops_off_policy_learner():
    cfg = EasyDict(seed=0, policy=deep_merge(DQNPolicy.default_config(), dict(
        model=dict(obs_shape=4, action_shape=2), learn=dict(batch_size=8, update_per_collect=2))))
    torch.manual_seed(0)
    policy = DQNPolicy(cfg.policy)
    buffer_ = DequeBuffer(size=100)
    n = 16
    reward = np.ones(n, dtype=np.float32)
    reward[:] = np.nan  # whichever rows are sampled, the TD target is NaN
    buffer_.push(Batch(obs=np.zeros((n, 4), np.float32), next_obs=np.zeros((n, 4), np.float32),
                       action=np.zeros(n, np.int64), reward=reward, done=np.zeros(n, bool)))
    with pytest.raises(NonFiniteError, match=r'DQNPolicy: non-finite \w*loss=nan at train_iter 0'):
        drive(OffPolicyLearner(cfg, policy.learn_mode, buffer_), OnlineRLContext())
