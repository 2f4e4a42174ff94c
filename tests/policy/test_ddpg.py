"""DDPGPolicy: one critic, actor every step, no target smoothing, noiseless collect == eval."""
import numpy as np
import pytest
import torch

from ding.model import ContinuousQAC
from ding.policy import DDPGPolicy
from qac_helpers import params, random_batch, same

MODEL = dict(obs_shape=3, action_shape=2, actor_head_hidden_size=32, critic_head_hidden_size=32)


def test_target_action_is_not_smoothed():
    torch.manual_seed(0)
    policy = DDPGPolicy(dict(model=MODEL))
    next_obs = torch.randn(4, 3)
    expected = policy._target_model.compute_actor(next_obs)['action']
    assert torch.equal(policy._target_action(next_obs), expected)


def test_actor_updates_every_step():
    torch.manual_seed(0)
    policy = DDPGPolicy(dict(model=MODEL))
    for step in range(2):
        before = params(policy._model.actor_params())
        out = policy.learn_mode.forward(random_batch(act_dim=2, seed=step))
        assert 'actor_loss' in out and not same(before, policy._model.actor_params())


def test_noiseless_collect_equals_eval():
    torch.manual_seed(0)
    policy = DDPGPolicy(dict(model=MODEL, collect=dict(noise_sigma=0.0)))
    obs = np.random.default_rng(0).normal(size=(6, 3)).astype(np.float32)
    assert np.array_equal(policy.collect_mode.forward_batch(obs)['action'],
                          policy.eval_mode.forward_batch(obs)['action'])


def test_gaussian_actor_is_rejected():
    with pytest.raises(ValueError, match='regression'):
        DDPGPolicy(dict(model=MODEL), model=ContinuousQAC(3, 2, action_space='reparameterization'))
