"""SQLPolicy (soft Q-learning) and its loss in ding/rl_utils/sql.py."""
import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.policy import SQLPolicy
from ding.rl_utils import boltzmann_action, q_nstep_sql_td_error, soft_value
from ding.utils.registry import POLICY_REGISTRY


def make_policy(**overrides) -> SQLPolicy:
    torch.manual_seed(0)
    cfg = dict(model=dict(obs_shape=4, action_shape=3, encoder_hidden_size_list=[16, 16]), **overrides)
    return SQLPolicy(cfg)


def make_batch(n=8, seed=0) -> Batch:
    rng = np.random.default_rng(seed)
    return Batch(obs=rng.standard_normal((n, 4)).astype(np.float32),
                 next_obs=rng.standard_normal((n, 4)).astype(np.float32), action=rng.integers(0, 3, n),
                 reward=rng.standard_normal(n).astype(np.float32), done=np.arange(n) % 3 == 0)


def test_soft_target_by_hand():
    q = torch.tensor([[1.0, 2.0], [0.0, 0.0]], requires_grad=True)
    next_q = torch.tensor([[1.0, 3.0], [2.0, 2.0]])
    action, reward, done = torch.tensor([1, 0]), torch.tensor([0.5, -1.0]), torch.tensor([0.0, 1.0])
    alpha, gamma = 0.5, 0.9
    out = q_nstep_sql_td_error(q, next_q, action, reward, done, gamma, alpha)
    v0 = alpha * np.log(np.exp(1.0 / alpha) + np.exp(3.0 / alpha))
    expected_target = np.array([0.5 + gamma * v0, -1.0])  # the second is terminal: no bootstrap
    np.testing.assert_allclose(out.target.numpy(), expected_target, rtol=1e-6)
    np.testing.assert_allclose(out.loss.item(), np.mean((np.array([2.0, 0.0]) - expected_target) ** 2), rtol=1e-6)
    out.loss.backward()
    assert q.grad[0, 0] == 0 and q.grad[1, 1] == 0  # only the taken actions get a gradient


def test_soft_value_tends_to_max_and_stays_finite():
    q = torch.tensor([[1.0, 5.0, 2.0]])
    assert soft_value(q, 1e-3).item() == pytest.approx(5.0, abs=1e-3)
    assert soft_value(q, 10.0).item() > 5.0  # entropy bonus at high temperature
    assert torch.isfinite(soft_value(q * 1e4, 1e-3)).all()
    with pytest.raises(ValueError, match='alpha'):
        q_nstep_sql_td_error(q, q, torch.tensor([0]), torch.tensor([0.0]), torch.tensor([0.0]), 0.9, 0.0)


def test_boltzmann_action_follows_the_softmax():
    torch.manual_seed(0)
    q = torch.tensor([[0.0, np.log(3.0)]]).repeat(20000, 1)
    freq = boltzmann_action(q, alpha=1.0).float().mean().item()
    assert freq == pytest.approx(0.75, abs=0.02)
    cold = boltzmann_action(q, alpha=0.01)
    assert cold.float().mean().item() == 1.0
    assert boltzmann_action(q, alpha=0.01, eps=1.0).float().mean().item() == pytest.approx(0.5, abs=0.02)


def test_policy_registered_with_di_engine_keys_and_learns_a_fixed_batch():
    assert POLICY_REGISTRY.lookup('sql') is SQLPolicy
    policy = make_policy(learn=dict(target_update_freq=10**6, learning_rate=0.01, alpha=0.1))
    assert policy.cfg.learn.alpha == 0.1 and policy.cfg.type == 'sql'
    batch = make_batch()
    losses = [policy.learn_mode.forward(batch)['total_loss'] for _ in range(60)]
    assert losses[-1] < 0.05 * losses[0]
    out = policy.learn_mode.forward(batch)
    assert set(policy.learn_mode.monitor_vars()) <= set(out)


def test_collect_samples_and_eval_is_greedy():
    policy = make_policy(learn=dict(alpha=100.0))  # hot: nearly uniform sampling
    obs = torch.zeros(600, 4)
    torch.manual_seed(1)
    actions = policy.collect_mode.forward_batch(obs.numpy())['action']
    counts = np.bincount(np.asarray(actions), minlength=3)
    assert counts.min() > 150  # every action sampled, though the Q-values favour one
    greedy = policy.eval_mode.forward_batch(obs.numpy())['action']
    assert len(set(np.asarray(greedy).tolist())) == 1


@pytest.mark.parametrize('alpha', [0, -1.0, 'x'])
def test_bad_temperature_is_refused(alpha):
    with pytest.raises(ValueError, match='alpha'):
        make_policy(learn=dict(alpha=alpha))


def test_state_dict_round_trip():
    a, b = make_policy(), make_policy()
    a.learn_mode.forward(make_batch())
    b.learn_mode.load_state_dict(a.learn_mode.state_dict())
    obs = np.ones((2, 4), np.float32)
    assert np.array_equal(np.asarray(a.eval_mode.forward_batch(obs)['logit']),
                          np.asarray(b.eval_mode.forward_batch(obs)['logit']))
