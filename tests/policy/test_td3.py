"""TD3Policy: delayed actor and target updates, smoothing on by default, learning a bandit."""
import numpy as np
import pytest
import torch

from ding.policy import TD3Policy
from qac_helpers import bandit_batch, params, random_batch, same

MODEL = dict(obs_shape=3, action_shape=1, actor_head_hidden_size=32, critic_head_hidden_size=32)


def test_defaults_are_td3():
    cfg = TD3Policy.default_config()
    assert cfg.model.twin_critic is True and cfg.learn.actor_update_freq == 2 and cfg.learn.noise is True
    assert cfg.collect.noise_sigma == 0.1 and cfg.learn.noise_range.max == 0.5


def test_actor_and_targets_update_every_second_step_critic_every_step():
    torch.manual_seed(0)
    policy = TD3Policy(dict(model=MODEL))
    actor, critic, target = (params(policy._model.actor_params()), params(policy._model.critic_params()),
                             params(policy._target_model.parameters()))
    changed = []
    for step in range(3):
        out = policy.learn_mode.forward(random_batch(seed=step))
        new_actor, new_critic = params(policy._model.actor_params()), params(policy._model.critic_params())
        new_target = params(policy._target_model.parameters())
        changed.append((not same(actor, new_actor), not same(critic, new_critic), not same(target, new_target),
                        'actor_loss' in out))
        actor, critic, target = new_actor, new_critic, new_target
    assert changed == [(True, True, True, True), (False, True, False, False), (True, True, True, True)]


def test_collect_noise_is_clipped_to_action_bounds():
    torch.manual_seed(0)
    policy = TD3Policy(dict(model=MODEL, collect=dict(noise_sigma=5.0)))
    act = policy.collect_mode.forward_batch(np.zeros((500, 3), np.float32))['action']
    assert act.min() == -1.0 and act.max() == 1.0


def test_learns_the_best_action_of_a_bandit():
    torch.manual_seed(0)
    policy = TD3Policy(dict(model=dict(obs_shape=2, action_shape=1, twin_critic=True),
                            learn=dict(learning_rate_actor=1e-3, learning_rate_critic=1e-2)))
    for step in range(300):
        policy.learn_mode.forward(bandit_batch(64, seed=step))
    action = policy.eval_mode.forward_batch(np.ones((1, 2), np.float32))['action'].item()
    assert action == pytest.approx(0.5, abs=0.1)
