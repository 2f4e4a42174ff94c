import numpy as np
import pytest
import torch

from ding.data.batch import Batch
from ding.model import DQN
from ding.policy import DQNPolicy
from ding.utils.registry import POLICY_REGISTRY


def make_policy(**overrides) -> DQNPolicy:
    torch.manual_seed(0)
    cfg = dict(model=dict(obs_shape=4, action_shape=3, encoder_hidden_size_list=[16, 16]), **overrides)
    return DQNPolicy(cfg)


def make_batch(n=8, seed=0, nstep=None) -> Batch:
    rng = np.random.default_rng(seed)
    cols = dict(
        obs=rng.standard_normal((n, 4)).astype(np.float32),
        next_obs=rng.standard_normal((n, 4)).astype(np.float32),
        action=rng.integers(0, 3, n),
        reward=rng.standard_normal((n, nstep) if nstep else n).astype(np.float32),
        done=np.arange(n) % 3 == 0,
    )
    if nstep:
        cols['nstep'] = np.full(n, nstep, dtype=np.int64)
    return Batch(cols)


def params(model):
    return [p.detach().clone() for p in model.parameters()]


def same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a, b))


def test_registered_and_default_model():
    assert POLICY_REGISTRY.lookup('dqn') is DQNPolicy
    policy = make_policy()
    assert isinstance(policy._model, DQN)
    assert policy.cfg.learn.target_update_freq == 100 and policy.cfg.other.eps.type == 'exp'


def test_learn_on_fixed_batch_decreases_loss():
    policy = make_policy(learn=dict(target_update_freq=10**6, learning_rate=0.01))
    batch = make_batch()
    losses = [policy.learn_mode.forward(batch)['total_loss'] for _ in range(60)]
    assert losses[-1] < 0.05 * losses[0]
    out = policy.learn_mode.forward(batch)
    assert set(policy.learn_mode.monitor_vars()) <= set(out)
    assert 'priority' not in out


def test_hard_target_update_every_freq_updates():
    policy = make_policy(learn=dict(target_update_freq=3))
    initial = params(policy._target_model)
    batch = make_batch()
    for _ in range(2):
        policy.learn_mode.forward(batch)
        assert same(params(policy._target_model), initial)
    policy.learn_mode.forward(batch)
    assert same(params(policy._target_model), params(policy._model))
    policy.learn_mode.forward(batch)
    assert not same(params(policy._target_model), params(policy._model))


def test_soft_target_update_when_freq_is_zero():
    policy = make_policy(learn=dict(target_update_freq=0, target_theta=0.25))
    before = params(policy._target_model)
    policy.learn_mode.forward(make_batch())
    for t, old, online in zip(policy._target_model.parameters(), before, policy._model.parameters()):
        assert torch.allclose(t, 0.75 * old + 0.25 * online.detach(), atol=1e-7)


def test_target_rule_must_be_valid():
    with pytest.raises(ValueError, match='target_update_freq > 0'):
        make_policy(learn=dict(target_update_freq=0, target_theta=0.0))


def test_reported_values_match_hand_computed_td():
    policy = make_policy(priority=True, discount_factor=0.9, learn=dict(double_dqn=False))
    batch = make_batch()
    with torch.no_grad():
        q = policy._model(torch.from_numpy(batch.obs))['logit']
        next_q = policy._target_model(torch.from_numpy(batch.next_obs))['logit']
    q_sa = q[torch.arange(8), torch.from_numpy(batch.action)]
    target = torch.from_numpy(batch.reward) + 0.9 * (1 - torch.from_numpy(batch.done).float()) * next_q.max(1).values
    out = policy.learn_mode.forward(batch)
    assert out['priority'] == pytest.approx((q_sa - target).abs().numpy(), abs=1e-6)
    assert out['total_loss'] == pytest.approx(((q_sa - target)**2).mean().item(), rel=1e-5)
    assert out['q_value'] == pytest.approx(q_sa.mean().item(), abs=1e-6)
    assert out['target_q_value'] == pytest.approx(target.mean().item(), abs=1e-6)


def test_ignore_done_bootstraps_terminal_transitions():
    batch = make_batch()
    batch['done'] = np.ones(8, dtype=bool)
    plain = make_policy().learn_mode.forward(batch)
    ignoring = make_policy(learn=dict(ignore_done=True)).learn_mode.forward(batch)
    assert plain['target_q_value'] == pytest.approx(float(batch.reward.mean()), abs=1e-6)
    assert ignoring['target_q_value'] != pytest.approx(plain['target_q_value'], abs=1e-4)


def test_zero_importance_weights_leave_the_model_unchanged():
    policy = make_policy(priority=True, priority_IS_weight=True)
    batch = make_batch()
    batch['priority_IS'] = np.zeros(8, dtype=np.float32)
    before = params(policy._model)
    out = policy.learn_mode.forward(batch)
    assert out['total_loss'] == 0.0 and same(params(policy._model), before)
    assert out['priority'].shape == (8, ) and (out['priority'] > 0).all()


def test_priority_is_weight_needs_the_column_and_priority():
    with pytest.raises(KeyError, match="no 'priority_IS' column"):
        make_policy(priority=True, priority_IS_weight=True).learn_mode.forward(make_batch())
    with pytest.raises(ValueError, match='needs priority=True'):
        make_policy(priority_IS_weight=True)


def test_nstep_batch_and_missing_enhancer():
    out = make_policy(nstep=3).learn_mode.forward(make_batch(nstep=3))
    assert np.isfinite(out['total_loss'])
    with pytest.raises(ValueError, match='nstep_reward_enhancer'):
        make_policy(nstep=3).learn_mode.forward(make_batch())


def test_grad_norm_clips_the_gradient():
    def grad_norm(policy):
        return torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in policy._model.parameters()])).item()

    batch = make_batch()
    free = make_policy()
    free.learn_mode.forward(batch)
    clipped = make_policy(learn=dict(grad_norm=0.01))
    clipped.learn_mode.forward(batch)
    assert grad_norm(free) > 0.1
    assert grad_norm(clipped) == pytest.approx(0.01, rel=1e-4)


def test_state_dict_round_trip_continues_identically():
    policy = make_policy(learn=dict(target_update_freq=2))
    batch = make_batch()
    policy.learn_mode.forward(batch)
    state = policy.learn_mode.state_dict()
    assert set(state) == {'model', 'target_model', 'optimizer', 'learn_step'}
    fresh = make_policy(learn=dict(target_update_freq=2))
    torch.manual_seed(123)
    for p in fresh._model.parameters():
        p.data.normal_()
    fresh.learn_mode.load_state_dict(state)
    a, b = policy.learn_mode.forward(batch), fresh.learn_mode.forward(batch)
    assert a == b
    assert same(params(policy._target_model), params(fresh._target_model))
    obs = batch.obs
    assert np.array_equal(policy.eval_mode.forward_batch(obs)['logit'], fresh.eval_mode.forward_batch(obs)['logit'])


def test_eval_only_policy_loads_a_learner_checkpoint():
    learner = make_policy()
    learner.learn_mode.forward(make_batch())
    evaluator = DQNPolicy(learner.cfg, enable_field=['eval'])
    evaluator.learn_mode.load_state_dict(learner.learn_mode.state_dict())
    obs = make_batch(seed=5).obs
    assert np.array_equal(evaluator.eval_mode.forward_batch(obs)['logit'],
                          learner.eval_mode.forward_batch(obs)['logit'])


def test_collect_eps_zero_and_absent_are_greedy():
    policy = make_policy()
    obs = make_batch(n=64).obs
    greedy = policy.eval_mode.forward_batch(obs)['action']
    assert np.array_equal(greedy, policy._model(torch.from_numpy(obs))['logit'].argmax(1).numpy())
    assert np.array_equal(policy.collect_mode.forward_batch(obs, eps=0.0)['action'], greedy)
    assert np.array_equal(policy.collect_mode.forward_batch(obs)['action'], greedy)
    assert np.array_equal(policy.collect_mode.forward_batch(obs, eps=-1)['action'], greedy)


def test_collect_eps_one_is_uniform():
    policy = make_policy()
    obs = np.repeat(make_batch(n=1).obs, 30000, axis=0)
    torch.manual_seed(0)
    action = policy.collect_mode.forward_batch(obs, eps=1.0)['action']
    assert action.dtype == np.int64
    freq = np.bincount(action, minlength=3) / len(action)
    assert freq == pytest.approx([1 / 3] * 3, abs=0.015)


def test_collect_dict_form_and_acting_copy_refreshes_after_update():
    policy = make_policy()
    obs = make_batch(n=2).obs
    out = policy.collect_mode.forward({3: obs[0], 7: obs[1]}, eps=0.0)
    assert set(out) == {3, 7} and set(out[3]) == {'action', 'logit'}
    before = policy.collect_mode.forward_batch(obs)['logit']
    policy.learn_mode.forward(make_batch())
    assert not np.array_equal(policy.collect_mode.forward_batch(obs)['logit'], before)



def test_huber_td_loss_and_centered_rmsprop_are_what_the_policy_uses():
    policy = make_policy(discount_factor=0.9, learn=dict(double_dqn=False, td_loss='huber', optimizer='rmsprop',
                                                         learning_rate=2.5e-4))
    group = policy._optimizer.param_groups[0]
    assert type(policy._optimizer) is torch.optim.RMSprop
    assert (group['alpha'], group['eps'], group['centered'], group['lr']) == (0.95, 0.01, True, 2.5e-4)
    batch = make_batch()
    with torch.no_grad():
        q = policy._model(torch.from_numpy(batch.obs))['logit']
        next_q = policy._target_model(torch.from_numpy(batch.next_obs))['logit']
    q_sa = q[torch.arange(8), torch.from_numpy(batch.action)]
    target = torch.from_numpy(batch.reward) + 0.9 * (1 - torch.from_numpy(batch.done).float()) * next_q.max(1).values
    err = (q_sa - target).abs()
    assert err.max() > 1 > err.min()  # both branches of the Huber loss are in the batch
    huber = torch.where(err <= 1, 0.5 * err**2, err - 0.5).mean().item()
    assert policy.learn_mode.forward(batch)['total_loss'] == pytest.approx(huber, rel=1e-5)


def test_family_members_with_their_own_loss_or_optimizer_refuse_the_dqn_choices():
    from ding.policy import FQFPolicy, QRDQNPolicy
    model = dict(obs_shape=4, action_shape=3, encoder_hidden_size_list=[16, 16])
    with pytest.raises(ValueError, match="QRDQNPolicy has its own TD loss; learn.td_loss='huber'"):
        QRDQNPolicy(dict(model=model, learn=dict(td_loss='huber')))
    with pytest.raises(ValueError, match="FQFPolicy builds its own optimizer; learn.optimizer='rmsprop'"):
        FQFPolicy(dict(model=model, learn=dict(optimizer='rmsprop')))
    assert type(QRDQNPolicy(dict(model=model, learn=dict(optimizer='rmsprop')))._optimizer) is torch.optim.RMSprop


def test_the_loss_and_optimizer_choices_are_checked_with_one_line_each():
    from ding.config.schema import check_values, declared
    assert check_values({'learn': {'td_loss': 'l1', 'optimizer': 'sgd', 'rmsprop': {'alpha': 2}}},
                        declared(DQNPolicy)) == ["learn.td_loss must be one of 'squared', 'huber', got 'l1'",
                                                 "learn.optimizer must be one of 'adam', 'rmsprop', got 'sgd'",
                                                 'learn.rmsprop.alpha must be a number in [0, 1], got 2']
