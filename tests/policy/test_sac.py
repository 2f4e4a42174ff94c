"""SACPolicy: one update's effects, acting modes, checkpoints, and learning a 1-step bandit."""
import numpy as np
import pytest
import torch

from ding.model import ContinuousQAC
from ding.policy import SACPolicy
from qac_helpers import bandit_batch, params, random_batch, same

MODEL = dict(obs_shape=3, action_shape=1, actor_head_hidden_size=32, critic_head_hidden_size=32)


def make_policy(**learn):
    torch.manual_seed(0)
    return SACPolicy(dict(model=MODEL, learn=learn))


def test_learn_step_reports_stats_and_moves_target_by_theta():
    policy = make_policy(target_theta=0.1)
    target_before = params(policy._target_model.critic_params())
    out = policy.learn_mode.forward(random_batch())
    assert set(policy.learn_mode.monitor_vars()) <= set(out)
    assert out['alpha'] == pytest.approx(0.2)
    online = policy._model.critic_params()
    for before, after, on in zip(target_before, policy._target_model.critic_params(), online):
        assert torch.allclose(after, 0.9 * before + 0.1 * on.detach(), atol=1e-6)


def test_auto_alpha_moves_temperature_and_fixed_alpha_does_not():
    auto = make_policy(learning_rate_alpha=0.1)
    auto.learn_mode.forward(random_batch())
    assert auto._log_alpha.item() != pytest.approx(np.log(0.2))
    fixed = make_policy(auto_alpha=False, alpha=0.05)
    fixed.learn_mode.forward(random_batch())
    assert fixed._log_alpha.item() == pytest.approx(np.log(0.05))


def test_init_w_bounds_actor_output_layer():
    policy = make_policy(init_w=1e-3)
    assert all(p.abs().max() <= 1e-3 for p in policy._model.actor_out.parameters())


def test_collect_is_stochastic_in_bounds_and_eval_is_deterministic():
    policy = make_policy()
    obs = np.zeros((256, 3), np.float32)
    act = policy.collect_mode.forward_batch(obs)['action']
    assert act.shape == (256, 1) and act.dtype == np.float32
    assert np.abs(act).max() < 1 and act.std() > 0.1
    e1 = policy.eval_mode.forward({0: obs[0], 1: obs[1]})
    assert e1[0]['action'].shape == (1, ) and e1[0]['action'] == e1[1]['action']


def test_state_dict_round_trip_restores_acting_and_temperature():
    policy = make_policy(learning_rate_alpha=0.1)
    for seed in range(3):
        policy.learn_mode.forward(random_batch(seed=seed))
    clone = SACPolicy(dict(model=MODEL))
    clone.learn_mode.load_state_dict(policy.learn_mode.state_dict())
    obs = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    assert np.array_equal(clone.eval_mode.forward_batch(obs)['action'], policy.eval_mode.forward_batch(obs)['action'])
    assert clone._log_alpha.item() == policy._log_alpha.item()
    assert same(clone._target_model.parameters(), policy._target_model.parameters())


def test_ignore_done_zeroes_terminations():
    policy = make_policy(ignore_done=True)
    done = policy._columns(random_batch().to_torch())[4]
    assert done.sum().item() == 0


def test_regression_model_is_rejected():
    with pytest.raises(ValueError, match='reparameterization'):
        SACPolicy(dict(model=MODEL), model=ContinuousQAC(3, 1, action_space='regression'))


def test_learns_the_best_action_of_a_bandit():
    torch.manual_seed(0)
    policy = SACPolicy(dict(model=dict(obs_shape=2, action_shape=1, twin_critic=True),
                            learn=dict(auto_alpha=False, alpha=0.01, learning_rate_q=3e-3,
                                       learning_rate_policy=3e-3)))
    for step in range(300):
        policy.learn_mode.forward(bandit_batch(64, seed=step))
    action = policy.eval_mode.forward_batch(np.ones((1, 2), np.float32))['action'].item()
    assert action == pytest.approx(0.5, abs=0.1)


def test_prioritized_replay_returns_priorities_and_zero_weights_freeze_the_critic():
    policy = make_policy()
    policy._cfg.priority, policy._cfg.priority_IS_weight = True, True
    batch = random_batch()
    batch['priority_IS'] = np.zeros(len(batch), np.float32)
    critic = params(policy._model.critic_params())
    out = policy.learn_mode.forward(batch)
    assert out['priority'].shape == (32, ) and (out['priority'] >= 0).all()
    assert same(critic, policy._model.critic_params())
    with pytest.raises(KeyError, match='priority_IS'):
        policy.learn_mode.forward(random_batch())
